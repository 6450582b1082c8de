package io.archiver.position;

import io.archiver.archive.ArchiveRoot;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** How committer subtasks write position records, one object each, on the local filesystem. */
class SubtaskPositionsTest {

    @TempDir File dir;

    @Test
    void aCommitOfManyPartitionsWritesOneObjectWhoseRecordsAStartReadsBack() throws Exception {
        List<PositionRecord> commit = new ArrayList<>();
        for (int p = 0; p < 500; p++) {
            commit.add(record(p, 1_000 + p, visibleFile(p, 1)));
        }

        assertThat(new SubtaskPositions(store(), 0).write(commit)).hasSize(500);

        assertThat(new File(dir, "_archiver/subtask-positions").list()).containsExactly("0.json");
        ArchivePositions positions = store().read();
        assertThat(positions.all()).hasSize(500);
        assertThat(positions.record(tp(499)).orElseThrow().nextOffset()).isEqualTo(1_499);
        assertThat(positions.record(tp(499)).orElseThrow().files()).hasSize(1);
    }

    @Test
    void aFileListedByManyPartitionsKeepsItsUploadOnceInTheObject() throws Exception {
        PositionRecord.PendingFile shared = new PositionRecord.PendingFile(
                new File(dir, "topic=orders/part-0.parquet").toURI().toString(), 0, 0, 1, 7, 3, "upload-handle".getBytes());
        List<PositionRecord> commit = new ArrayList<>();
        for (int p = 0; p < 100; p++) {
            commit.add(new PositionRecord("orders", p, 10 + p, 1, List.of(
                    new PositionRecord.PendingFile(shared.path(), p, 9 + p, 10, 7, 3, "upload-handle".getBytes()))));
        }

        new SubtaskPositions(store(), 0).write(commit);

        String json = Files.readString(new File(dir, "_archiver/subtask-positions/0.json").toPath());
        assertThat(json.split(java.util.Base64.getEncoder().encodeToString("upload-handle".getBytes()), -1)).hasSize(2);
        assertThat(store().read().record(tp(42)).orElseThrow().files()).singleElement().satisfies(f -> {
            assertThat(f.firstOffset()).isEqualTo(42);
            assertThat(f.uploadVersion()).isEqualTo(3);
            assertThat(new String(f.upload())).isEqualTo("upload-handle");
        });
    }

    @Test
    void onceACommitIsCompleteItsRecordsNoLongerListItsFiles() throws Exception {
        SubtaskPositions positions = new SubtaskPositions(store(), 0);
        positions.write(List.of(record(0, 100, visibleFile(0, 1)), record(1, 100, visibleFile(1, 1))));
        assertThat(store().read().record(tp(1)).orElseThrow().files()).as("while the commit is made").hasSize(1);

        positions.committed();
        assertThat(store().read().all()).allSatisfy(r -> assertThat(r.files()).isEmpty());

        positions.write(List.of(record(0, 200, visibleFile(0, 2))));
        ArchivePositions read = store().read();
        assertThat(read.record(tp(0)).orElseThrow().files()).as("the commit being made").hasSize(1);
        assertThat(read.record(tp(1)).orElseThrow().files()).as("settled").isEmpty();
        assertThat(read.record(tp(1)).orElseThrow().nextOffset()).isEqualTo(100);
    }

    @Test
    void eachRecordKeepsItsLastArchivedRecordsLeaderEpochThroughItsSettlementAndOneWithoutReadsAsUnknown() throws Exception {
        SubtaskPositions positions = new SubtaskPositions(store(), 0);
        positions.write(List.of(record(0, 100, visibleFile(0, 1)).withLastLeaderEpoch(7), record(1, 100, visibleFile(1, 1))));
        assertThat(store().read().record(tp(0)).orElseThrow().lastLeaderEpoch()).isEqualTo(7);
        assertThat(store().read().record(tp(1)).orElseThrow().lastLeaderEpoch()).as("written by a version without epochs").isEqualTo(-1);

        positions.committed();
        assertThat(store().read().record(tp(0)).orElseThrow().lastLeaderEpoch()).as("settled").isEqualTo(7);
    }

    @Test
    void aCommitterRestartedKeepsTheRecordsOfItsOtherPartitions() throws Exception {
        new SubtaskPositions(store(), 2).write(List.of(record(0, 100, visibleFile(0, 1)), record(1, 300, visibleFile(1, 1))));

        new SubtaskPositions(store(), 2).write(List.of(record(0, 200, visibleFile(0, 2))));

        ArchivePositions read = store().read();
        assertThat(read.record(tp(0)).orElseThrow().nextOffset()).isEqualTo(200);
        assertThat(read.record(tp(1)).orElseThrow().nextOffset()).isEqualTo(300);
        assertThat(read.record(tp(0)).orElseThrow().sequence()).isEqualTo(2);
    }

    @Test
    void aPartitionWhoseSubtaskChangedIsWhereItsLatestCommitSaysWhateverTheObjects() throws Exception {
        new SubtaskPositions(store(), 3).write(List.of(record(0, 100, visibleFile(0, 1)), record(1, 100, visibleFile(1, 1))));
        // rescaled from 4 subtasks to 2: partition 1 is committed by subtask 1 now, subtask 3 is gone
        new SubtaskPositions(store(), 1).write(List.of(record(1, 500, visibleFile(1, 2))));
        // and back to 4: subtask 3 commits partition 1 again, after what subtask 1 wrote
        new SubtaskPositions(store(), 3).write(List.of(record(1, 700, visibleFile(1, 3))));

        ArchivePositions read = store().read();
        assertThat(read.record(tp(0)).orElseThrow().nextOffset()).isEqualTo(100);
        assertThat(read.record(tp(1)).orElseThrow().nextOffset()).isEqualTo(700);
        assertThat(read.record(tp(1)).orElseThrow().sequence()).isEqualTo(3);
    }

    @Test
    void aCommitOfOlderVisibleFilesLeavesThePositionWhereItIs() throws Exception {
        new SubtaskPositions(store(), 0).write(List.of(record(0, 500, visibleFile(0, 2))));

        // a restore from an older savepoint re-commits files that are visible since
        List<PositionRecord> written = new SubtaskPositions(store(), 1).write(List.of(record(0, 40, visibleFile(0, 1))));

        assertThat(written).isEmpty();
        assertThat(store().read().record(tp(0)).orElseThrow().nextOffset()).isEqualTo(500);
        assertThat(new File(dir, "_archiver/subtask-positions/1.json")).doesNotExist();
    }

    @Test
    void aCommitBelowAPositionWhoseFilesAreLostBecomesThePosition() throws Exception {
        PositionRecord.PendingFile lost = new PositionRecord.PendingFile(
                new File(dir, "topic=orders/partition=0/lost.jsonl").toURI().toString(), 400, 499, 100, 10, 1, new byte[0]);
        new SubtaskPositions(store(), 0).write(List.of(new PositionRecord("orders", 0, 500, 9, List.of(lost))));

        // a start without state resumed at 400, the lost file's first offset; this job archives 400..449
        List<PositionRecord> written = new SubtaskPositions(store(), 1).write(List.of(record(0, 450, visibleFile(0, 2))));

        assertThat(written).hasSize(1);
        assertThat(store().read().record(tp(0)).orElseThrow().nextOffset()).isEqualTo(450);
    }

    private PositionStore store() {
        return new PositionStore(ArchiveRoot.of(dir.toURI().toString()));
    }

    private static TopicPartition tp(int partition) {
        return new TopicPartition("orders", partition);
    }

    private static PositionRecord record(int partition, long next, PositionRecord.PendingFile file) {
        return new PositionRecord("orders", partition, next, 1, List.of(file));
    }

    /** A committed part file of the partition, and its entry in a position record. */
    private PositionRecord.PendingFile visibleFile(int partition, int n) throws IOException {
        File file = new File(dir, "topic=orders/partition=" + partition + "/part-" + n + ".jsonl");
        Files.createDirectories(file.getParentFile().toPath());
        Files.writeString(file.toPath(), "records");
        return new PositionRecord.PendingFile(file.toURI().toString(), 0, 0, 1, 7, 1, new byte[0]);
    }
}
