package io.archiver.format.parquet;

import io.archiver.archive.ArchiveFileReader;
import io.archiver.format.LocalPartFiles;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;

import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.values.bloomfilter.BloomFilter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.io.api.Binary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Key Bloom filters ({@code sink.parquet.bloom-filter-columns}): every row group of both layouts carries one sized to
 * its keys, copies and compactions keep them, a file written anew without a key's rows gets filters without it, and a
 * search for keys reads only the row groups whose filters may hold them.
 */
class KeyBloomFiltersTest {

    /** Row groups of 64 KB: files of several row groups from a few thousand records. */
    private static final EnvelopeParquetBuilder KEYS =
            new EnvelopeParquetBuilder(PayloadFormats.BYTES, ParquetCompression.ZSTD, 1, 64 << 10, 8 << 10).bloomFilters(List.of("key"));

    @TempDir java.nio.file.Path dir;

    @Test
    void everyRowGroupOfBothLayoutsCarriesAKeyFilterSizedToItsKeys() throws Exception {
        for (Path file : List.of(
                LocalPartFiles.write(dir.resolve("partition.parquet"), new EnvelopeParquetWriterFactory(KEYS), records(1, 12_000)),
                LocalPartFiles.write(dir.resolve("topic.parquet"), new GroupedParquetWriterFactory(KEYS), records(3, 4_000)))) {
            try (ParquetFileReader reader = open(file)) {
                assertThat(reader.getRowGroups()).as(file.getName()).hasSizeGreaterThan(1);
                for (BlockMetaData block : reader.getRowGroups()) {
                    ColumnChunkMetaData key = key(block);
                    BloomFilter filter = reader.readBloomFilter(key);
                    assertThat(filter).as("the key filter of a row group of " + file.getName()).isNotNull();
                    // a row group of a few thousand keys: a filter of a few KB, not the largest
                    assertThat(filter.getBitsetSize()).isBetween(BloomFilters.MIN_KB * 1024, 16 * 1024);
                }
                assertThat(mayHold(reader, "k-17")).as("row groups whose filter may hold k-17").isNotEmpty();
            }
        }
    }

    @Test
    void aSearchForAKeyReadsOnlyTheRowGroupsWhoseFiltersMayHoldIt() throws Exception {
        Path file = LocalPartFiles.write(dir.resolve("search.parquet"), new EnvelopeParquetWriterFactory(KEYS), records(1, 20_000));
        byte[] key = "k-4711".getBytes(StandardCharsets.UTF_8);
        try (ParquetFileReader all = open(file);
                ParquetFileReader filtered = ParquetFileReader.open(input(file), ParquetReadOptions.builder()
                        .withRecordFilter(ParquetRecords.keyFilter(all.getFooter(), List.of(key), Long.MAX_VALUE)).build())) {
            assertThat(all.getRowGroups()).hasSizeGreaterThan(4);
            // the key is in one row group; another's filter answers yes at 1 % at most
            assertThat(filtered.getRowGroups()).hasSizeLessThanOrEqualTo(2);
        }
        List<ArchiveRecord> found = new ArrayList<>();
        assertThat(new ArchiveFileReader(PayloadFormats.BYTES).readKeys(file, List.of(key), Long.MAX_VALUE, found::add)).as("narrowed by the filters").isTrue();
        assertThat(found).extracting(ArchiveRecord::getOffset).containsExactly(4711L);
    }

    @Test
    void aFileWrittenAnewWithoutAKeysRowsCarriesFiltersWithoutIt() throws Exception {
        Path file = LocalPartFiles.write(dir.resolve("before.parquet"), new GroupedParquetWriterFactory(KEYS), records(2, 2_000));
        Path out = new Path(dir.resolve("after.parquet").toUri());
        try (FSDataOutputStream stream = out.getFileSystem().create(out, FileSystem.WriteMode.NO_OVERWRITE)) {
            // k-5 is the key of offset 5 of both partitions
            assertThat(ParquetFormat.INSTANCE.copyWithout(file, stream, Map.of(0, Set.of(5L), 1, Set.of(5L)))).isEqualTo(2);
        }
        try (ParquetFileReader before = open(file); ParquetFileReader after = open(out)) {
            assertThat(mayHold(before, "k-5")).isNotEmpty();
            assertThat(mayHold(after, "k-5")).as("row groups whose new filter may hold the erased key").isEmpty();
            assertThat(mayHold(after, "k-6")).isNotEmpty();
            for (BlockMetaData block : after.getRowGroups()) {
                assertThat(after.readBloomFilter(key(block))).isNotNull();
            }
        }
    }

    @Test
    void filesConcatenatedIntoOneKeepTheirFilters() throws Exception {
        Path a = LocalPartFiles.write(dir.resolve("a.parquet"), new GroupedParquetWriterFactory(KEYS), records(2, 1_000));
        Path b = LocalPartFiles.write(dir.resolve("b.parquet"), new GroupedParquetWriterFactory(KEYS), records(2, 1_000));
        Path out = new Path(dir.resolve("concatenated.parquet").toUri());
        try (FSDataOutputStream stream = out.getFileSystem().create(out, FileSystem.WriteMode.NO_OVERWRITE)) {
            ParquetConcatenation.concatenate(List.of(
                    new ParquetConcatenation.Input(a, size(a), ParquetFooters.readFooter(a, size(a))),
                    new ParquetConcatenation.Input(b, size(b), ParquetFooters.readFooter(b, size(b)))), stream);
        }
        try (ParquetFileReader reader = open(out)) {
            for (BlockMetaData block : reader.getRowGroups()) {
                assertThat(reader.readBloomFilter(key(block))).isNotNull();
            }
            assertThat(mayHold(reader, "k-999")).isNotEmpty();
        }
        assertThat(new ArchiveFileReader(PayloadFormats.BYTES).readAll(out)).hasSize(4_000);
    }

    /** {@code partitions} × {@code perPartition} records, the key of offset i {@code k-i}, 200-byte values. */
    private static List<ArchiveRecord> records(int partitions, int perPartition) {
        List<ArchiveRecord> records = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            for (int i = 0; i < perPartition; i++) {
                records.add(new ArchiveRecord("people", p, i, 1_772_859_843_000L + i, "CreateTime",
                        ("k-" + i).getBytes(StandardCharsets.UTF_8), ("v-" + p + "-" + i + "-" + "x".repeat(200)).getBytes(StandardCharsets.UTF_8),
                        new String[0], new byte[0][]));
            }
        }
        return records;
    }

    /** The row groups whose key filter may hold {@code key}. */
    private static List<BlockMetaData> mayHold(ParquetFileReader reader, String key) throws Exception {
        List<BlockMetaData> found = new ArrayList<>();
        for (BlockMetaData block : reader.getRowGroups()) {
            BloomFilter filter = reader.readBloomFilter(key(block));
            if (filter.findHash(filter.hash(Binary.fromString(key)))) {
                found.add(block);
            }
        }
        return found;
    }

    private static ColumnChunkMetaData key(BlockMetaData block) {
        return block.getColumns().stream().filter(c -> c.getPath().toDotString().equals("key")).findFirst().orElseThrow();
    }

    private static ParquetFileReader open(Path file) throws Exception {
        return ParquetFileReader.open(input(file));
    }

    private static FlinkInputFile input(Path file) throws Exception {
        return new FlinkInputFile(file.getFileSystem(), file, size(file));
    }

    private static long size(Path file) throws Exception {
        return file.getFileSystem().getFileStatus(file).getLen();
    }
}
