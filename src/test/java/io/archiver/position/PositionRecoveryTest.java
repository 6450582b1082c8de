package io.archiver.position;

import io.archiver.archive.ArchiveRoot;
import io.archiver.fs.MetadataObjects;

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
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Position records on the local filesystem: how a record becomes a resume position. */
class PositionRecoveryTest {

    @TempDir File dir;

    @Test
    void partitionWithoutRecordHasNoResumePosition() throws Exception {
        assertThat(resume(recovery(), 3)).isEmpty();
    }

    @Test
    void fileWhoseCommitWasCutShortIsCommittedAndThePartitionResumesAfterTheRecord() throws Exception {
        PositionRecovery recovery = recovery();
        PositionRecord.PendingFile pending = pendingFile("part-0.jsonl", 100, 149);
        commit(recovery, new PositionRecord("orders", 0, 150, 7, List.of(pending)));

        assertThat(new File(dir, "topic=orders/partition=0/part-0.jsonl")).doesNotExist();
        assertThat(resume(recovery, 0)).contains(150L);
        assertThat(new File(dir, "topic=orders/partition=0/part-0.jsonl")).hasContent("records 100..149");
    }

    @Test
    void lostUploadAfterEveryVisibleFileResumesAtItsFirstOffset() throws Exception {
        PositionRecovery recovery = recovery();
        PositionRecord.PendingFile visible = committed(pendingFile("part-0.jsonl", 100, 149));
        PositionRecord.PendingFile lost = pendingFile("part-1.jsonl", 150, 199);
        deleteUploads();
        commit(recovery, new PositionRecord("orders", 0, 200, 7, List.of(visible, lost)));

        assertThat(resume(recovery, 0)).contains(150L);
        assertThat(resume(recovery, 0)).as("the next start without state, nothing committed in between").contains(150L);
    }

    @Test
    void lostUploadBeforeAVisibleFileFailsNamingBothFiles() throws Exception {
        PositionRecovery recovery = recovery();
        PositionRecord.PendingFile lost = pendingFile("part-0.jsonl", 100, 149);
        deleteUploads();
        PositionRecord.PendingFile visible = committed(pendingFile("part-1.jsonl", 150, 199));
        commit(recovery, new PositionRecord("orders", 0, 200, 7, List.of(lost, visible)));

        assertThatThrownBy(() -> resume(recovery, 0))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("Cannot resume orders-0 exactly")
                .hasMessageContaining(lost.path())
                .hasMessageContaining(visible.path())
                .hasMessageContaining("resume.from-archive");
    }

    @Test
    void readingAheadSettlesOnlyRecordsWhoseFilesAreAllVisibleAndCompletesNothing() throws Exception {
        PositionRecovery recovery = recovery();
        PositionRecord.PendingFile visible = committed(pendingFile("part-0.jsonl", 100, 149));
        commit(recovery, new PositionRecord("orders", 0, 150, 7, List.of(visible)),
                new PositionRecord("orders", 1, 300, 7, List.of(pendingFile("part-1.jsonl", 250, 299))));
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            ArchivePositions positions = recovery.read();
            assertThat(positions.partitionsOf("orders")).containsExactlyInAnyOrder(0, 1);
            assertThat(positions.partitionsOf("unknown")).isEmpty();
            assertThat(recovery.settledPositions(positions,
                    List.of(new TopicPartition("orders", 0), new TopicPartition("orders", 1), new TopicPartition("orders", 2)), pool))
                    .containsExactly(Map.entry(new TopicPartition("orders", 0), 150L));
        } finally {
            pool.shutdownNow();
        }
        assertThat(new File(dir, "topic=orders/partition=0/part-1.jsonl")).doesNotExist();
        assertThat(resume(recovery, 1)).contains(300L);
    }

    @Test
    void positionRecordsOfEarlierVersionsAreReadUntilACommitSupersedesThem() throws Exception {
        PositionRecovery recovery = recovery();
        PositionStore store = recovery.store();
        PositionRecord.PendingFile pending = pendingFile("part-0.jsonl", 100, 149);
        MetadataObjects.write(store.perPartitionPath("orders", 0), new PositionRecord("orders", 0, 150, 7, List.of(pending)).toJson());
        MetadataObjects.write(store.perPartitionPath("orders", 1), new PositionRecord("orders", 1, 80, 7, List.of()).toJson());

        assertThat(resume(recovery, 0)).as("its cut-short commit completed").contains(150L);
        assertThat(new File(dir, "topic=orders/partition=0/part-0.jsonl")).hasContent("records 100..149");
        assertThat(resume(recovery, 1)).contains(80L);

        commit(recovery, new PositionRecord("orders", 1, 120, 8, List.of()));
        assertThat(resume(recovery, 1)).contains(120L);
        assertThat(recovery.read().record(new TopicPartition("orders", 1)).orElseThrow().sequence()).isEqualTo(1);
    }

    private PositionRecovery recovery() {
        return new PositionRecovery(ArchiveRoot.of(dir.toURI().toString()));
    }

    private static Optional<Long> resume(PositionRecovery recovery, int partition) throws IOException {
        return recovery.resumePosition(recovery.read(), new TopicPartition("orders", partition));
    }

    /** Writes {@code records} as committer subtask 0 does before it commits their files. */
    private static void commit(PositionRecovery recovery, PositionRecord... records) throws IOException {
        new SubtaskPositions(recovery.store(), 0).write(List.of(records));
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
        return new PendingUploads(ArchiveRoot.of(dir.toURI().toString())).pendingFile(pending, first, last, last - first + 1);
    }

    /** Commits {@code file} as a completed checkpoint would have. */
    private PositionRecord.PendingFile committed(PositionRecord.PendingFile file) throws IOException {
        PositionStore scratch = new PositionStore(ArchiveRoot.of(new File(dir, "scratch").toURI().toString()));
        new SubtaskPositions(scratch, 0).write(List.of(new PositionRecord("orders", 0, file.lastOffset() + 1, 6, List.of(file))));
        new PositionRecovery(scratch.root()).resumePositions(List.of(new TopicPartition("orders", 0)));
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
