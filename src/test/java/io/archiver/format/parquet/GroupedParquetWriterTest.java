package io.archiver.format.parquet;

import io.archiver.archive.ArchiveFileReader;
import io.archiver.format.LocalPartFiles;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.EnvelopeFields;
import io.archiver.record.PayloadFormats;

import org.apache.flink.core.fs.Path;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** A file of the per-topic layout: many partitions, rows grouped by partition, row groups ending at partition boundaries. */
class GroupedParquetWriterTest {

    /** Partition 3 gets enough data for row groups of its own; 0, 1 and 2 are small and share one. */
    private static final int[] RECORDS = {5, 40, 7, 3_000};

    @TempDir java.nio.file.Path dir;

    @Test
    void rowsAreGroupedByPartitionInOffsetOrderWhateverTheArrivalOrder() throws Exception {
        List<ArchiveRecord> written = interleaved();
        Path file = write(written);

        List<ArchiveRecord> read = new ArchiveFileReader(PayloadFormats.BYTES).readAll(file);

        assertThat(read).hasSameSizeAs(written);
        List<ArchiveRecord> expected = new ArrayList<>(written);
        expected.sort((a, b) -> a.getPartition() != b.getPartition()
                ? Integer.compare(a.getPartition(), b.getPartition()) : Long.compare(a.getOffset(), b.getOffset()));
        assertThat(read).containsExactlyElementsOf(expected);
    }

    @Test
    void rowGroupsEndAtPartitionBoundariesAndTheFooterNamesEachPartitionsOffsets() throws Exception {
        Path file = write(interleaved());

        List<long[]> partitionRanges = new ArrayList<>();
        try (ParquetFileReader reader = ParquetFileReader.open(new FlinkInputFile(file.getFileSystem(), file,
                file.getFileSystem().getFileStatus(file).getLen()))) {
            for (BlockMetaData block : reader.getFooter().getBlocks()) {
                for (ColumnChunkMetaData column : block.getColumns()) {
                    if (column.getPath().toDotString().equals(EnvelopeFields.PARTITION)) {
                        Statistics<?> stats = column.getStatistics();
                        partitionRanges.add(new long[] {(Integer) stats.genericGetMin(), (Integer) stats.genericGetMax()});
                    }
                }
            }
        }
        assertThat(partitionRanges.get(0)).as("the small partitions share the first row group").containsExactly(0, 2);
        assertThat(partitionRanges.subList(1, partitionRanges.size())).isNotEmpty()
                .allSatisfy(range -> assertThat(range).as("partition 3's own row groups").containsExactly(3, 3));

        Map<Integer, long[]> footer = new ArchiveFileReader(PayloadFormats.BYTES).sharedFilePartitions(file);
        assertThat(footer).containsOnlyKeys(0, 1, 2, 3);
        assertThat(footer.get(1)).containsExactly(100, 139, 40);
        assertThat(footer.get(3)).containsExactly(100, 3_099, 3_000);
    }

    @Test
    void aPartitionsRecordsAndOffsetsAreReadAlone() throws Exception {
        Path file = write(interleaved());
        ArchiveFileReader reader = new ArchiveFileReader(PayloadFormats.BYTES);

        List<ArchiveRecord> partition1 = new ArrayList<>();
        reader.readPartition(file, 1, partition1::add);
        List<Long> offsets3 = new ArrayList<>();
        reader.partitionOffsets(file, 3, offsets3::add);

        assertThat(partition1).hasSize(40).allSatisfy(r -> assertThat(r.getPartition()).isEqualTo(1));
        assertThat(partition1.get(0).getOffset()).isEqualTo(100);
        assertThat(offsets3).hasSize(3_000).startsWith(100L).endsWith(3_099L).isSorted();
        List<Long> none = new ArrayList<>();
        reader.partitionOffsets(file, 9, none::add);
        assertThat(none).isEmpty();
    }

    /** The records of the partitions, offsets from 100, arriving round-robin across partitions. */
    private static List<ArchiveRecord> interleaved() {
        List<ArchiveRecord> records = new ArrayList<>();
        for (int i = 0; i < 3_000; i++) {
            for (int p = 0; p < RECORDS.length; p++) {
                if (i < RECORDS[p]) {
                    byte[] value = ("value-" + p + "-" + i + "-" + "x".repeat(600)).getBytes(StandardCharsets.UTF_8);
                    records.add(new ArchiveRecord("orders", p, 100 + i, 1_772_859_843_000L + i, "CreateTime",
                            ("k" + (i % 7)).getBytes(StandardCharsets.UTF_8), value, new String[0], new byte[0][]));
                }
            }
        }
        return records;
    }

    private Path write(List<ArchiveRecord> records) throws Exception {
        return LocalPartFiles.write(dir.resolve("part-0.parquet"), new GroupedParquetWriterFactory(
                new EnvelopeParquetBuilder(PayloadFormats.BYTES, ParquetCompression.SNAPPY, 3, 32 << 20, 1 << 20)), records);
    }
}
