package io.archiver.archive;

import io.archiver.format.FileFormats;
import io.archiver.config.ArchiverConfig;
import io.archiver.config.SinkLayout;
import io.archiver.config.TimePartitioning;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ArchiveLayoutTest {

    /** 2026-03-07T05:04:03Z. */
    private static final long TS = 1_772_859_843_000L;

    @Test
    void bucketsAreHiveStyleFromTheRecordTimestampInUtc() {
        assertThat(ArchiveLayout.bucket("orders", 3, TS, TimePartitioning.NONE, SinkLayout.PER_PARTITION)).isEqualTo("topic=orders/partition=3");
        assertThat(ArchiveLayout.bucket("orders", 3, TS, TimePartitioning.DAY, SinkLayout.PER_PARTITION))
                .isEqualTo("topic=orders/partition=3/date=2026-03-07");
        assertThat(ArchiveLayout.bucket("orders", 3, TS, TimePartitioning.HOUR, SinkLayout.PER_PARTITION))
                .isEqualTo("topic=orders/partition=3/date=2026-03-07/hour=05");
    }

    @Test
    void perTopicBucketsHaveNoPartitionFolderAndTheirFilesAreKnownAsShared() {
        assertThat(ArchiveLayout.bucket("orders", 3, TS, TimePartitioning.HOUR, SinkLayout.PER_TOPIC))
                .isEqualTo("topic=orders/date=2026-03-07/hour=05");
        assertThat(ArchiveLayout.bucket("orders", 3, TS, TimePartitioning.NONE, SinkLayout.PER_TOPIC)).isEqualTo("topic=orders");
        assertThat(ArchiveLayout.sharedFileTopic("/archive/topic=orders.v2/date=2026-03-07/part-x-0-1.parquet")).contains("orders.v2");
        assertThat(ArchiveLayout.sharedFileTopic("/archive/topic=orders/part-x-0-1.parquet")).contains("orders");
        assertThat(ArchiveLayout.sharedFileTopic("/archive/topic=orders/partition=1/part-x-0-1.parquet")).isEmpty();
        assertThat(ArchiveLayout.sharedFileTopic("/archive/other/part-x-0-1.parquet")).isEmpty();
    }

    @Test
    void aFilesTimeFolderIsReadBackFromItsPathAsTheBucketWroteIt() {
        for (TimePartitioning time : TimePartitioning.values()) {
            String path = "s3://b/a/" + ArchiveLayout.bucket("orders", 3, TS, time, SinkLayout.PER_PARTITION) + "/part-1.parquet";
            ArchiveLayout.TimeFolder folder = ArchiveLayout.timeFolderOf(path);
            assertThat(folder.time()).as(path).isEqualTo(time);
            assertThat(folder.start()).as(path).isEqualTo(ArchiveLayout.timeFolderStart(TS, time));
        }
    }

    @Test
    void hourBoundariesAndRecordsWithoutTimestamp() {
        assertThat(ArchiveLayout.bucket("t", 0, 0L, TimePartitioning.HOUR, SinkLayout.PER_PARTITION)).endsWith("date=1970-01-01/hour=00");
        assertThat(ArchiveLayout.bucket("t", 0, 86_399_999L, TimePartitioning.HOUR, SinkLayout.PER_PARTITION)).endsWith("date=1970-01-01/hour=23");
        assertThat(ArchiveLayout.bucket("t", 0, -1L, TimePartitioning.HOUR, SinkLayout.PER_PARTITION)).endsWith("date=1969-12-31/hour=23");
    }

    @Test
    void partitionIsReadBackFromAPath() {
        var tp = ArchiveLayout.partitionOf("/archive/topic=orders.v2/partition=12/date=2026-03-07/part-x-0-1.parquet");
        assertThat(tp).isPresent();
        assertThat(tp.get().topic()).isEqualTo("orders.v2");
        assertThat(tp.get().partition()).isEqualTo(12);
        assertThat(ArchiveLayout.partitionOf("/archive/other/file.parquet")).isEmpty();
    }

    @Test
    void onlyVisibleArchiveFilesAreData() {
        assertThat(ArchiveLayout.isDataFile("part-1-0-3.parquet")).isTrue();
        assertThat(ArchiveLayout.isDataFile("part-1-0-3.jsonl.gz")).isTrue();
        assertThat(ArchiveLayout.isDataFile(".part-1-0-3.parquet.inprogress.abc")).isFalse();
        assertThat(ArchiveLayout.isDataFile("_manifest.json")).isFalse();
        assertThat(ArchiveLayout.isDataFile("part-1-0-3.json")).isFalse();
    }

    @Test
    void aFileIsReadInTheFormatItsNameSaysAndWrittenWithTheConfiguredSuffix() {
        ArchiverConfig gzip = ArchiverConfig.of(Map.of(
                "kafka.bootstrap.servers", "localhost:9092", "kafka.topics", "t", "sink.path", "file:///tmp/a",
                "sink.format", "jsonl", "sink.jsonl.compression", "gzip"));
        assertThat(FileFormats.configured(gzip).suffix(gzip)).isEqualTo(".jsonl.gz");
        assertThat(FileFormats.ofFile("part-1-0-3.jsonl.zst")).contains(FileFormats.named("jsonl"));
        assertThat(FileFormats.ofFile("part-1-0-3.parquet")).contains(FileFormats.named("parquet"));
        assertThat(FileFormats.named("parquet").suffix(gzip)).isEqualTo(".parquet");
        assertThat(FileFormats.named("jsonl").writes(SinkLayout.PER_TOPIC)).isFalse();
        assertThatThrownBy(() -> FileFormats.named("jsonl").writer(gzip, SinkLayout.PER_TOPIC))
                .hasMessageContaining("needs Parquet");
    }
}
