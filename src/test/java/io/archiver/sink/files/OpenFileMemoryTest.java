package io.archiver.sink.files;

import io.archiver.format.parquet.ParquetCompression;
import io.archiver.format.parquet.EnvelopeParquetBuilder;
import io.archiver.format.parquet.EnvelopeParquetWriterFactory;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;

import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.functions.sink.filesystem.PartFileInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class OpenFileMemoryTest {

    @TempDir java.nio.file.Path dir;

    @Test
    void withinTheBudgetNoFileIsClosed() {
        OpenFileMemory memory = new OpenFileMemory(1_000, 0);
        memory.update("a", 600);
        memory.update("b", 400);
        assertThat(memory.shouldClose("a")).isFalse();
        assertThat(memory.shouldClose("b")).isFalse();
        assertThat(memory.bufferedBytes()).isEqualTo(1_000);
    }

    @Test
    void overTheBudgetOnlyFilesHoldingAtLeastTheirShareAreClosed() {
        OpenFileMemory memory = new OpenFileMemory(1_000, 0);
        memory.update("a", 900);
        memory.update("b", 100);
        memory.update("c", 200);
        // 1,200 buffered by 3 files: the share is 400
        assertThat(memory.shouldClose("a")).isTrue();
        assertThat(memory.shouldClose("b")).isFalse();
        assertThat(memory.shouldClose("c")).isFalse();
        assertThat(memory.shouldClose("unknown")).isFalse();
        memory.release("a");
        assertThat(memory.bufferedBytes()).isEqualTo(300);
        assertThat(memory.shouldClose("c")).isFalse();
        assertThat(memory.filesClosedEarly()).isEqualTo(1);
    }

    @Test
    void updatesReplaceAFilesFormerFigure() {
        OpenFileMemory memory = new OpenFileMemory(1_000, 0);
        memory.update("a", 800);
        memory.update("a", 1_200);
        assertThat(memory.bufferedBytes()).isEqualTo(1_200);
        assertThat(memory.shouldClose("a")).isTrue();
    }

    @Test
    void filesHoldingTooLittleToBeWorthClosingStayOpenEvenOverBudget() {
        OpenFileMemory memory = new OpenFileMemory(1_000, 500);
        for (int i = 0; i < 5; i++) {
            memory.update("small-" + i, 300);
        }
        assertThat(memory.shouldClose("small-0")).isFalse();
        memory.update("big", 800);
        assertThat(memory.shouldClose("big")).isTrue();
        assertThat(memory.filesClosedEarly()).isEqualTo(1);
    }

    @Test
    void aZeroBudgetOnlyTracks() {
        OpenFileMemory memory = new OpenFileMemory(0, 0);
        memory.update("a", Long.MAX_VALUE / 2);
        assertThat(memory.shouldClose("a")).isFalse();
    }

    @Test
    void theRollingPolicyClosesTheFileThatHoldsTooMuchOnItsNextRecordAndOnTheTimer() throws Exception {
        OpenFileMemory memory = new OpenFileMemory(1_000, 0);
        ArchiveRollingPolicy policy = new ArchiveRollingPolicy(Long.MAX_VALUE, 0, 0).forSubtask(memory, new SchemaBoundFiles());
        memory.update("big", 1_500);
        memory.update("small", 10);
        assertThat(policy.shouldRollOnEvent(part("big"), null)).isTrue();
        assertThat(policy.shouldRollOnEvent(part("small"), null)).isFalse();
        assertThat(policy.shouldRollOnProcessingTime(part("big"), 0)).isTrue();
        memory.release("big");
        assertThat(policy.shouldRollOnProcessingTime(part("small"), 0)).isFalse();
    }

    @Test
    void parquetPartFilesReportTheirBuffersAndTheirOffsetsToTheirSubtask() throws Exception {
        SubtaskPartFiles subtask = new PartFiles(
                new EnvelopeParquetWriterFactory(new EnvelopeParquetBuilder(PayloadFormats.BYTES, ParquetCompression.SNAPPY, 3, 8 << 20, 64 * 1024)),
                new ArchiveBucketAssigner(io.archiver.config.TimePartitioning.NONE, io.archiver.config.SinkLayout.PER_PARTITION), new ArchiveRollingPolicy(Long.MAX_VALUE, 0, 0), 0, 0)
                .forSubtask();
        OpenFileMemory memory = subtask.memory();
        BulkWriter.Factory<ArchiveRecord> factory = subtask.writers();
        Random random = new Random(7);
        try (FSDataOutputStream out = FileSystem.getLocalFileSystem().create(new Path(dir.resolve("a.parquet").toUri()), FileSystem.WriteMode.OVERWRITE)) {
            BulkWriter<ArchiveRecord> writer = factory.create(out);
            for (int i = 0; i < 1_000; i++) {
                byte[] value = new byte[1024];
                random.nextBytes(value);
                writer.addElement(new ArchiveRecord("t", 0, i, 0L, "CreateTime", null, value, new String[0], new byte[0][]));
            }
            // about 1 MB of incompressible values, held until the row group (8 MB) is full or the file closes
            assertThat(memory.bufferedBytes()).isBetween(800_000L, 2_000_000L);
            writer.finish();
        }
        assertThat(memory.bufferedBytes()).isZero();
        assertThat(subtask.takeFinished("topic=t/partition=0")).containsExactly(new FileStats("t", 0, 0, 999, 1_000));
    }

    private static PartFileInfo<String> part(String bucket) {
        return new PartFileInfo<>() {
            @Override
            public String getBucketId() {
                return bucket;
            }

            @Override
            public long getCreationTime() {
                return 0;
            }

            @Override
            public long getSize() {
                return 0;
            }

            @Override
            public long getLastUpdateTime() {
                return 0;
            }
        };
    }
}
