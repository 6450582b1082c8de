package io.archiver.format.parquet;

import io.archiver.format.FormatReader;
import io.archiver.record.ArchiveRecord;

import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.filter2.predicate.FilterApi;
import org.apache.parquet.filter2.predicate.FilterPredicate;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.api.Binary;

import java.io.IOException;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

import static io.archiver.record.EnvelopeFields.*;

/**
 * Reads Parquet archive files: records, or only the columns asked for (offsets), or the footer alone (counts, offset
 * statistics, a shared file's partitions). Payloads are raw bytes whatever the payload format, rebuilt from their typed
 * columns where the file left them out. A partition's records, and the records of some keys, are read through Parquet's
 * filter, so row groups whose statistics (and, for keys, Bloom filters) exclude them are skipped.
 */
final class ParquetRecords implements FormatReader {

    /** The projection that reads a record's offset and nothing else. */
    private static final String OFFSET_ONLY = "message kafka_record { required int64 " + OFFSET + "; }";
    /** The projection that reads a record's partition and offset. */
    private static final String PARTITION_AND_OFFSET =
            "message kafka_record { required int32 " + PARTITION + "; required int64 " + OFFSET + "; }";

    /** Payloads left out of the file where its typed columns rebuild them ({@code sink.parquet.decoded-payload-bytes: rebuild}) are rebuilt. */
    @Override
    public void read(Path file, int partition, Consumer<ArchiveRecord> sink) throws IOException {
        try (ParquetReader<ArchiveRecord> reader = rows(file, partition(partition), null, new ArchiveRecordReadSupport())) {
            for (ArchiveRecord r = reader.read(); r != null; r = reader.read()) {
                sink.accept(r);
            }
        }
    }

    /**
     * Through Parquet's filter of the key column (and the timestamp's): a row group whose Bloom filter, statistics or
     * page indexes rule every key out is not read, and of the others only the envelope's columns but value and headers.
     * A file whose keys may be rebuilt from typed columns (a null key column) is read whole but for the time. Narrowed by
     * an index when every row group has a Bloom filter of the key.
     */
    @Override
    public boolean readKeys(Path file, Collection<byte[]> keys, long beforeMillis, Consumer<ArchiveRecord> sink) throws IOException {
        ParquetMetadata footer;
        try (ParquetFileReader reader = footer(file)) {
            footer = reader.getFooter();
        }
        ArchiveRecordReadSupport support = keysRebuilt(footer) ? new ArchiveRecordReadSupport() : ArchiveRecordReadSupport.positionsAndKeys();
        try (ParquetReader<ArchiveRecord> reader = rows(file, keyFilter(footer, keys, beforeMillis), null, support)) {
            for (ArchiveRecord r = reader.read(); r != null; r = reader.read()) {
                sink.accept(r);
            }
        }
        return !keysRebuilt(footer) && footer.getBlocks().stream().allMatch(b -> b.getColumns().stream()
                .anyMatch(c -> c.getPath().toDotString().equals(KEY) && c.getBloomFilterOffset() >= 0));
    }

    @Override
    public ColumnSearch readWhere(Path file, String column, Collection<String> values, long beforeMillis, Consumer<ArchiveRecord> sink)
            throws IOException {
        ParquetMetadata footer;
        try (ParquetFileReader reader = footer(file)) {
            footer = reader.getFooter();
        }
        return TypedColumnSearch.read(file, footer, column, values, beforeMillis, sink);
    }

    /** The filter of {@link #readKeys}: the key column's values among {@code keys} (unless rebuilt), timestamps before the time. */
    static FilterCompat.Filter keyFilter(ParquetMetadata footer, Collection<byte[]> keys, long beforeMillis) {
        FilterPredicate filter = null;
        if (!keysRebuilt(footer)) {
            Set<Binary> values = new HashSet<>();
            keys.forEach(k -> values.add(Binary.fromConstantByteArray(k)));
            filter = FilterApi.in(FilterApi.binaryColumn(KEY), values);
        }
        if (beforeMillis != Long.MAX_VALUE) {
            FilterPredicate time = FilterApi.lt(FilterApi.longColumn(TIMESTAMP), beforeMillis);
            filter = filter == null ? time : FilterApi.and(filter, time);
        }
        return filter == null ? FilterCompat.NOOP : FilterCompat.get(filter);
    }

    /** Whether the file's keys may be rebuilt from typed columns: its key column is then null for them. */
    private static boolean keysRebuilt(ParquetMetadata footer) {
        return footer.getFileMetaData().getSchema().containsField(KEY_DECODED);
    }

    /** Reads the offset column alone (and the partition column when filtering by partition). */
    @Override
    public void offsets(Path file, int partition, LongConsumer sink) throws IOException {
        Configuration conf = new Configuration(false);
        conf.set(ReadSupport.PARQUET_READ_SCHEMA, partition == ALL_PARTITIONS ? OFFSET_ONLY : PARTITION_AND_OFFSET);
        try (ParquetReader<Group> reader = rows(file, partition(partition), conf, new GroupReadSupport())) {
            for (Group g = reader.read(); g != null; g = reader.read()) {
                sink.accept(g.getLong(OFFSET, 0));
            }
        }
    }

    @Override
    public long count(Path file) throws IOException {
        try (ParquetFileReader reader = footer(file)) {
            return reader.getRecordCount();
        }
    }

    @Override
    public long[] offsetStatistics(Path file) throws IOException {
        try (ParquetFileReader reader = footer(file)) {
            return ParquetFooters.offsetStatistics(reader.getFooter());
        }
    }

    @Override
    public Map<Integer, long[]> sharedFilePartitions(Path file) throws IOException {
        try (ParquetFileReader reader = footer(file)) {
            return ParquetFooters.sharedFilePartitions(reader.getFooter());
        }
    }

    private static ParquetFileReader footer(Path file) throws IOException {
        return ParquetFileReader.open(input(file));
    }

    private static FlinkInputFile input(Path file) throws IOException {
        FileSystem fs = file.getFileSystem();
        return new FlinkInputFile(fs, file, fs.getFileStatus(file).getLen());
    }

    /** The filter of {@code partition}'s rows (by row group statistics, then row by row). */
    private static FilterCompat.Filter partition(int partition) {
        return partition == ALL_PARTITIONS ? FilterCompat.NOOP : FilterCompat.get(FilterApi.eq(FilterApi.intColumn(PARTITION), partition));
    }

    /** A row reader of {@code file}'s rows that pass {@code filter}. */
    static <T> ParquetReader<T> rows(Path file, FilterCompat.Filter filter, Configuration conf, ReadSupport<T> readSupport) throws IOException {
        ParquetReader.Builder<T> builder = new ParquetReader.Builder<T>(input(file)) {
            @Override
            protected ReadSupport<T> getReadSupport() {
                return readSupport;
            }
        };
        if (conf != null) {
            builder = builder.withConf(conf);
        }
        return builder.withFilter(filter).build();
    }
}
