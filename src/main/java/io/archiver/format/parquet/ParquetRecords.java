package io.archiver.format.parquet;

import io.archiver.format.FormatReader;
import io.archiver.record.ArchiveRecord;

import org.apache.avro.Schema;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.filter2.predicate.FilterApi;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.api.InitContext;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;

import java.io.IOException;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

import static io.archiver.record.EnvelopeFields.*;

/**
 * Reads Parquet archive files: records, or only the columns asked for (offsets), or the footer alone (counts, offset
 * statistics, a shared file's partitions). Payloads are raw bytes whatever the payload format, rebuilt from their typed
 * columns where the file left them out. A partition's records are read through Parquet's filter, so row groups whose
 * statistics exclude it are skipped.
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
        RebuildingReadSupport readSupport = new RebuildingReadSupport();
        try (ParquetReader<Group> reader = groups(file, partition, null, readSupport)) {
            for (Group g = reader.read(); g != null; g = reader.read()) {
                sink.accept(fromGroup(g, readSupport));
            }
        }
    }

    /** Reads the offset column alone (and the partition column when filtering by partition). */
    @Override
    public void offsets(Path file, int partition, LongConsumer sink) throws IOException {
        Configuration conf = new Configuration(false);
        conf.set(ReadSupport.PARQUET_READ_SCHEMA, partition == ALL_PARTITIONS ? OFFSET_ONLY : PARTITION_AND_OFFSET);
        try (ParquetReader<Group> reader = groups(file, partition, conf, new GroupReadSupport())) {
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
            long min = Long.MAX_VALUE;
            long max = Long.MIN_VALUE;
            for (BlockMetaData block : reader.getFooter().getBlocks()) {
                for (ColumnChunkMetaData column : block.getColumns()) {
                    if (column.getPath().toDotString().equals(OFFSET)) {
                        Statistics<?> stats = column.getStatistics();
                        if (stats == null || !stats.hasNonNullValue()) {
                            return null;
                        }
                        min = Math.min(min, (Long) stats.genericGetMin());
                        max = Math.max(max, (Long) stats.genericGetMax());
                    }
                }
            }
            long count = reader.getRecordCount();
            return count == 0 ? null : new long[] {min, max, count};
        }
    }

    @Override
    public Map<Integer, long[]> sharedFilePartitions(Path file) throws IOException {
        try (ParquetFileReader reader = footer(file)) {
            return SharedFilePartitions.decode(
                    reader.getFooter().getFileMetaData().getKeyValueMetaData().get(SharedFilePartitions.KEY));
        }
    }

    private static ParquetFileReader footer(Path file) throws IOException {
        return ParquetFileReader.open(input(file));
    }

    private static FlinkInputFile input(Path file) throws IOException {
        FileSystem fs = file.getFileSystem();
        return new FlinkInputFile(fs, file, fs.getFileStatus(file).getLen());
    }

    /** A row reader of {@code file}, of {@code partition}'s rows (by row group statistics, then row by row). */
    private static ParquetReader<Group> groups(Path file, int partition, Configuration conf, GroupReadSupport readSupport) throws IOException {
        ParquetReader.Builder<Group> builder = new ParquetReader.Builder<Group>(input(file)) {
            @Override
            protected ReadSupport<Group> getReadSupport() {
                return readSupport;
            }
        };
        if (conf != null) {
            builder = builder.withConf(conf);
        }
        return builder.withFilter(partition == ALL_PARTITIONS
                        ? FilterCompat.NOOP
                        : FilterCompat.get(FilterApi.eq(FilterApi.intColumn(PARTITION), partition)))
                .build();
    }

    private static ArchiveRecord fromGroup(Group g, RebuildingReadSupport file) {
        Group headers = g.getGroup(HEADERS, 0);
        int n = headers.getFieldRepetitionCount("list");
        String[] keys = new String[n];
        byte[][] values = new byte[n][];
        for (int i = 0; i < n; i++) {
            Group element = headers.getGroup("list", i).getGroup("element", 0);
            keys[i] = element.getString(HEADER_KEY, 0);
            values[i] = optionalBytes(element, HEADER_VALUE);
        }
        return new ArchiveRecord(
                g.getString(TOPIC, 0),
                g.getInteger(PARTITION, 0),
                g.getLong(OFFSET, 0),
                g.getLong(TIMESTAMP, 0),
                g.getString(TIMESTAMP_TYPE, 0),
                payload(g, KEY, KEY_SCHEMA_ID, KEY_DECODED, file.keySchema),
                payload(g, VALUE, VALUE_SCHEMA_ID, VALUE_DECODED, file.valueSchema),
                keys,
                values);
    }

    /** A key or value: its bytes, or rebuilt from its typed columns where the file left them out. */
    private static byte[] payload(Group g, String field, String idColumn, String decodedColumn, Schema schema) {
        // a file with a reader schema in its footer has the id and typed columns; a null payload has no id
        if (g.getFieldRepetitionCount(field) > 0 || schema == null || g.getFieldRepetitionCount(idColumn) == 0) {
            return optionalBytes(g, field);
        }
        return AvroColumnsEncoder.encode(g.getInteger(idColumn, 0), schema, g, decodedColumn);
    }

    /** Reads whole records, and the Avro reader schemas in the file's footer that rebuild payloads left out. */
    private static final class RebuildingReadSupport extends GroupReadSupport {
        Schema keySchema;
        Schema valueSchema;

        @Override
        public ReadContext init(InitContext context) {
            Map<String, String> footer = context.getMergedKeyValueMetaData();
            keySchema = avro(footer.get(EnvelopeWriteSupport.KEY_SCHEMA_KEY));
            valueSchema = avro(footer.get(EnvelopeWriteSupport.VALUE_SCHEMA_KEY));
            return super.init(context);
        }

        private static Schema avro(String text) {
            return text == null ? null : new Schema.Parser().parse(text);
        }
    }

    private static byte[] optionalBytes(Group g, String field) {
        return g.getFieldRepetitionCount(field) == 0 ? null : g.getBinary(field, 0).getBytes();
    }
}
