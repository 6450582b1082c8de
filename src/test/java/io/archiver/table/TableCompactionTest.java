package io.archiver.table;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.parquet.hadoop.metadata.FileMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Which files a compaction takes, and the order that keeps every partition's offsets ascending. */
class TableCompactionTest {

    private static final String FOLDER = "s3://archive/orders/topic=orders/date=2026-01-01/hour=05/";

    private final Map<String, ParquetMetadata> footers = new HashMap<>();

    @Test
    void filesOfTheSamePartitionsFollowTheirOffsetsWhateverTheListingOrder() throws Exception {
        // subtask 0 rolled a and then c within one checkpoint; b is subtask 1's (partitions a and c do not hold)
        DataFile a = shared("part-z-0-7.parquet", "0:100-199:100;2:0-9:10");
        DataFile b = shared("part-a-1-3.parquet", "1:50-99:50");
        DataFile c = shared("part-b-0-8.parquet", "0:200-249:50;2:10-19:10");
        DataFile d = shared("compacted-x.parquet", "0:0-99:100;1:0-49:50");

        List<DataFile> ordered = TableCompaction.inOffsetOrder(List.of(c, b, a, d), footers);

        assertThat(ordered).extracting(DataFile::location).containsSubsequence(d.location(), a.location(), c.location());
        assertThat(ordered.indexOf(d)).isLessThan(ordered.indexOf(b));
    }

    @Test
    void filesWhoseOffsetsOverlapAreRefusedNamingBoth() {
        DataFile a = shared("part-0.parquet", "0:100-199:100");
        DataFile b = shared("part-1.parquet", "0:150-249:100");

        assertThatThrownBy(() -> TableCompaction.inOffsetOrder(List.of(a, b), footers))
                .hasMessageContaining("overlapping offsets of partition 0").hasMessageContaining("part-0.parquet").hasMessageContaining("part-1.parquet");
    }

    @Test
    void aRecordTimeFolderIsClosedOnceItEndedTheGraceAgo() {
        Instant end = Instant.parse("2026-01-01T06:00:00Z");
        Duration grace = Duration.ofHours(1);
        assertThat(TableCompaction.closed(FOLDER + "part.parquet", grace, end.plus(grace))).isTrue();
        assertThat(TableCompaction.closed(FOLDER + "part.parquet", grace, end.plus(grace).minusMillis(1))).isFalse();
        assertThat(TableCompaction.closed("s3://archive/orders/topic=orders/partition=0/part.parquet", grace, end.plus(Duration.ofDays(999))))
                .as("a folder without a record time").isFalse();
    }

    private DataFile shared(String name, String partitions) {
        String location = FOLDER + name;
        footers.put(location, new ParquetMetadata(new FileMetaData(MessageTypeParser.parseMessageType("message r { required int64 offset; }"),
                Map.of("kafka-s3-archiver.partitions", partitions), "test"), List.of()));
        return DataFiles.builder(PartitionSpec.unpartitioned()).withPath(location).withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(1_000).withRecordCount(10).build();
    }
}
