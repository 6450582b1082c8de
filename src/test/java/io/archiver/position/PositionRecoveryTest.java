package io.archiver.position;

import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.core.fs.RecoverableFsDataOutputStream;
import org.apache.flink.core.fs.RecoverableWriter;
import org.apache.flink.streaming.api.functions.sink.filesystem.OutputStreamBasedPartFileWriter.OutputStreamBasedPendingFileRecoverable;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Position records on the local filesystem: how a record becomes a resume position. */
class PositionRecoveryTest {

    @TempDir File dir;

    @Test
    void partitionWithoutRecordHasNoResumePosition() throws Exception {
        assertThat(recovery().resumePosition("orders", 3)).isEmpty();
    }

    @Test
    void fileWhoseCommitWasCutShortIsCommittedAndThePartitionResumesAfterTheRecord() throws Exception {
        PositionRecovery recovery = recovery();
        PositionStore store = recovery.store();
        PositionRecord.PendingFile pending = pendingFile("part-0.jsonl", 100, 149);
        store.write(new PositionRecord("orders", 0, 150, 7, List.of(pending)));

        assertThat(new File(dir, "topic=orders/partition=0/part-0.jsonl")).doesNotExist();
        assertThat(recovery.resumePosition("orders", 0)).contains(150L);
        assertThat(new File(dir, "topic=orders/partition=0/part-0.jsonl")).hasContent("records 100..149");
    }

    @Test
    void lostUploadAfterEveryVisibleFileResumesAtItsFirstOffset() throws Exception {
        PositionRecovery recovery = recovery();
        PositionStore store = recovery.store();
        PositionRecord.PendingFile visible = committed(recovery, pendingFile("part-0.jsonl", 100, 149));
        PositionRecord.PendingFile lost = pendingFile("part-1.jsonl", 150, 199);
        deleteUploads();
        store.write(new PositionRecord("orders", 0, 200, 7, List.of(visible, lost)));

        assertThat(recovery.resumePosition("orders", 0)).contains(150L);
    }

    @Test
    void lostUploadBeforeAVisibleFileFailsNamingBothFiles() throws Exception {
        PositionRecovery recovery = recovery();
        PositionStore store = recovery.store();
        PositionRecord.PendingFile lost = pendingFile("part-0.jsonl", 100, 149);
        deleteUploads();
        PositionRecord.PendingFile visible = committed(recovery, pendingFile("part-1.jsonl", 150, 199));
        store.write(new PositionRecord("orders", 0, 200, 7, List.of(lost, visible)));

        assertThatThrownBy(() -> recovery.resumePosition("orders", 0))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("Cannot resume orders-0 exactly")
                .hasMessageContaining(lost.path())
                .hasMessageContaining(visible.path())
                .hasMessageContaining("resume.from-archive");
    }

    @Test
    void readingAheadSettlesOnlyRecordsWhoseFilesAreAllVisibleAndCompletesNothing() throws Exception {
        PositionRecovery recovery = recovery();
        PositionStore store = recovery.store();
        store.write(new PositionRecord("orders", 0, 150, 7, List.of(committed(recovery, pendingFile("part-0.jsonl", 100, 149)))));
        store.write(new PositionRecord("orders", 1, 300, 7, List.of(pendingFile("part-1.jsonl", 250, 299))));
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            assertThat(store.recordedPartitions("orders")).containsExactlyInAnyOrder(0, 1);
            assertThat(store.recordedPartitions("unknown")).isEmpty();
            assertThat(recovery.settledPositions(
                    List.of(new TopicPartition("orders", 0), new TopicPartition("orders", 1), new TopicPartition("orders", 2)), pool))
                    .containsExactly(Map.entry(new TopicPartition("orders", 0), 150L));
        } finally {
            pool.shutdownNow();
        }
        assertThat(new File(dir, "topic=orders/partition=0/part-1.jsonl")).doesNotExist();
        assertThat(recovery.resumePosition("orders", 1)).contains(300L);
    }

    private PositionRecovery recovery() {
        return new PositionRecovery(dir.toURI().toString());
    }

    /** Writes a part file up to the point of its commit: pending, not visible. */
    private PositionRecord.PendingFile pendingFile(String name, long first, long last) throws IOException {
        Path target = new Path(new Path(dir.toURI()), "topic=orders/partition=0/" + name);
        RecoverableWriter writer = FileSystem.getLocalFileSystem().createRecoverableWriter();
        RecoverableFsDataOutputStream out = writer.open(target);
        byte[] content = ("records " + first + ".." + last).getBytes(StandardCharsets.UTF_8);
        out.write(content);
        RecoverableWriter.CommitRecoverable commit = out.closeForCommit().getRecoverable();
        OutputStreamBasedPendingFileRecoverable pending = new OutputStreamBasedPendingFileRecoverable(commit, target, content.length);
        return new PendingUploads(dir.toURI().toString()).pendingFile(pending, first, last, last - first + 1);
    }

    /** Commits {@code file} as a completed checkpoint would have. */
    private static PositionRecord.PendingFile committed(PositionRecovery recovery, PositionRecord.PendingFile file) throws IOException {
        recovery.store().write(new PositionRecord("orders", 0, file.lastOffset() + 1, 6, List.of(file)));
        recovery.resumePosition("orders", 0);
        return file;
    }

    /** Removes the in-progress data of every pending file, as an aborted upload would. */
    private void deleteUploads() {
        File[] files = new File(dir, "topic=orders/partition=0").listFiles((d, n) -> n.startsWith("."));
        for (File f : files) {
            f.delete();
        }
    }
}
