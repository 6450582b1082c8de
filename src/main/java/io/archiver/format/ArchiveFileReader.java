package io.archiver.format;

import io.archiver.config.PayloadFormat;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.filter2.predicate.FilterApi;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.io.InputFile;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.zip.GZIPInputStream;

import static io.archiver.record.EnvelopeFields.*;

/**
 * Reads archived part files back into {@link ArchiveRecord}s, whatever their format (chosen by suffix:
 * {@code .parquet}, {@code .jsonl}, {@code .jsonl.gz}, {@code .jsonl.zst}) and filesystem. JSON Lines payloads are decoded
 * with the payload formats they were written with; Parquet payloads are raw bytes whatever the format.
 */
public final class ArchiveFileReader {

    /** The projection that reads a record's offset and nothing else. */
    private static final String OFFSET_ONLY = "message kafka_record { required int64 " + OFFSET + "; }";
    /** The projection that reads a record's partition and offset. */
    private static final String PARTITION_AND_OFFSET =
            "message kafka_record { required int32 " + PARTITION + "; required int64 " + OFFSET + "; }";

    private static final int ALL_PARTITIONS = -1;

    private final PayloadFormats formats;
    private final ObjectMapper mapper = new ObjectMapper();

    public ArchiveFileReader(PayloadFormats formats) {
        this.formats = formats;
    }

    public List<ArchiveRecord> readAll(Path file) throws IOException {
        List<ArchiveRecord> out = new ArrayList<>();
        read(file, out::add);
        return out;
    }

    /** Number of records in a file: from the footer for Parquet, by reading for JSON Lines. */
    public long count(Path file) throws IOException {
        FileSystem fs = file.getFileSystem();
        if (file.getName().endsWith(".parquet")) {
            try (ParquetFileReader reader =
                    ParquetFileReader.open(new FlinkInputFile(fs, file, fs.getFileStatus(file).getLen()))) {
                return reader.getRecordCount();
            }
        }
        long[] n = {0};
        read(file, r -> n[0]++);
        return n[0];
    }

    /**
     * What a file of the per-topic layout holds of each partition, from its footer: partition to {first offset,
     * last offset, records}; empty for a file without that metadata.
     */
    public Map<Integer, long[]> sharedFilePartitions(Path file) throws IOException {
        FileSystem fs = file.getFileSystem();
        try (ParquetFileReader reader =
                ParquetFileReader.open(new FlinkInputFile(fs, file, fs.getFileStatus(file).getLen()))) {
            return SharedFilePartitions.decode(reader.getFooter().getFileMetaData().getKeyValueMetaData().get(SharedFilePartitions.KEY));
        }
    }

    /**
     * The smallest and largest offset and the record count of a Parquet file, from its footer statistics
     * alone ({@code {min, max, count}}), or null when the file is not Parquet or has no statistics.
     */
    public long[] offsetStatistics(Path file) throws IOException {
        if (!file.getName().endsWith(".parquet")) {
            return null;
        }
        FileSystem fs = file.getFileSystem();
        try (ParquetFileReader reader =
                ParquetFileReader.open(new FlinkInputFile(fs, file, fs.getFileStatus(file).getLen()))) {
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

    /**
     * The offset of every record of a file, in file order. Parquet files are read by their offset column only
     * (the other columns are not decoded); JSON Lines files line by line.
     */
    public void offsets(Path file, LongConsumer sink) throws IOException {
        offsets(file, ALL_PARTITIONS, sink);
    }

    /**
     * {@link #offsets}, of {@code partition}'s records only: a file of the per-topic layout holds many partitions,
     * and its row groups whose statistics exclude the partition are not read.
     */
    public void partitionOffsets(Path file, int partition, LongConsumer sink) throws IOException {
        offsets(file, partition, sink);
    }

    private void offsets(Path file, int partition, LongConsumer sink) throws IOException {
        if (!file.getName().endsWith(".parquet")) {
            read(file, partition, r -> sink.accept(r.getOffset()));
            return;
        }
        FileSystem fs = file.getFileSystem();
        Configuration conf = new Configuration(false);
        conf.set(ReadSupport.PARQUET_READ_SCHEMA, partition == ALL_PARTITIONS ? OFFSET_ONLY : PARTITION_AND_OFFSET);
        try (ParquetReader<Group> reader =
                new ParquetReader.Builder<Group>(new FlinkInputFile(fs, file, fs.getFileStatus(file).getLen())) {
                    @Override
                    protected ReadSupport<Group> getReadSupport() {
                        return new GroupReadSupport();
                    }
                }.withConf(conf).withFilter(filter(partition)).build()) {
            for (Group g = reader.read(); g != null; g = reader.read()) {
                sink.accept(g.getLong(OFFSET, 0));
            }
        }
    }

    /** Parquet's filter of {@code partition}'s rows (by row group statistics, then row by row). */
    private static FilterCompat.Filter filter(int partition) {
        return partition == ALL_PARTITIONS
                ? FilterCompat.NOOP
                : FilterCompat.get(FilterApi.eq(FilterApi.intColumn(PARTITION), partition));
    }

    public void read(Path file, Consumer<ArchiveRecord> sink) throws IOException {
        read(file, ALL_PARTITIONS, sink);
    }

    /** {@link #read}, of {@code partition}'s records only (see {@link #partitionOffsets}). */
    public void readPartition(Path file, int partition, Consumer<ArchiveRecord> sink) throws IOException {
        read(file, partition, sink);
    }

    private void read(Path file, int partition, Consumer<ArchiveRecord> all) throws IOException {
        FileSystem fs = file.getFileSystem();
        String name = file.getName();
        if (name.endsWith(".parquet")) {
            readParquet(new FlinkInputFile(fs, file, fs.getFileStatus(file).getLen()), filter(partition), all);
            return;
        }
        Consumer<ArchiveRecord> sink = partition == ALL_PARTITIONS ? all : r -> {
            if (r.getPartition() == partition) {
                all.accept(r);
            }
        };
        if (name.endsWith(".jsonl") || name.endsWith(".jsonl.gz") || name.endsWith(".jsonl.zst")) {
            try (InputStream raw = fs.open(file); InputStream in = decompressing(raw, name)) {
                readJsonLines(in, sink);
            }
        } else {
            throw new IOException("Not an archive file (expected .parquet, .jsonl, .jsonl.gz or .jsonl.zst): " + file);
        }
    }

    private static InputStream decompressing(InputStream raw, String name) throws IOException {
        if (name.endsWith(".gz")) {
            return new GZIPInputStream(raw, 64 * 1024);
        }
        if (name.endsWith(".zst")) {
            return new BufferedInputStream(new ZstdInputStreamNoFinalizer(raw), 64 * 1024);
        }
        return raw;
    }

    private static void readParquet(InputFile file, FilterCompat.Filter filter, Consumer<ArchiveRecord> sink) throws IOException {
        try (ParquetReader<Group> reader =
                new ParquetReader.Builder<Group>(file) {
                    @Override
                    protected ReadSupport<Group> getReadSupport() {
                        return new GroupReadSupport();
                    }
                }.withFilter(filter).build()) {
            for (Group g = reader.read(); g != null; g = reader.read()) {
                sink.accept(fromGroup(g));
            }
        }
    }

    private static ArchiveRecord fromGroup(Group g) {
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
                optionalBytes(g, KEY),
                optionalBytes(g, VALUE),
                keys,
                values);
    }

    private static byte[] optionalBytes(Group g, String field) {
        return g.getFieldRepetitionCount(field) == 0 ? null : g.getBinary(field, 0).getBytes();
    }

    /**
     * One envelope per line, read with Jackson's streaming parser straight from the bytes: no line strings and no
     * tree per record (only a JSON payload is read as a tree, to write it back compact).
     */
    private void readJsonLines(InputStream in, Consumer<ArchiveRecord> sink) throws IOException {
        try (JsonParser p = mapper.createParser(in)) {
            for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
                if (t != JsonToken.START_OBJECT) {
                    throw new IOException("Not a JSON Lines archive file: a line is not a JSON object (" + t + " at line "
                            + p.currentLocation().getLineNr() + ")");
                }
                sink.accept(envelope(p));
            }
        }
    }

    private ArchiveRecord envelope(JsonParser p) throws IOException {
        String topic = null;
        String timestampType = null;
        int partition = 0;
        long offset = 0;
        long timestamp = 0;
        byte[] key = null;
        byte[] value = null;
        List<String> headerKeys = new ArrayList<>(4);
        List<byte[]> headerValues = new ArrayList<>(4);
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken t = p.nextToken();
            switch (field) {
                case TOPIC -> topic = p.getText();
                case PARTITION -> partition = p.getIntValue();
                case OFFSET -> offset = p.getLongValue();
                case TIMESTAMP -> timestamp = p.getLongValue();
                case TIMESTAMP_TYPE -> timestampType = p.getText();
                case KEY -> key = payload(p, t, formats.key());
                case VALUE -> value = payload(p, t, formats.value());
                case HEADERS -> {
                    while (p.nextToken() == JsonToken.START_OBJECT) {
                        String headerKey = null;
                        byte[] headerValue = null;
                        while (p.nextToken() == JsonToken.FIELD_NAME) {
                            String name = p.currentName();
                            JsonToken ht = p.nextToken();
                            if (name.equals(HEADER_KEY)) {
                                headerKey = p.getText();
                            } else if (name.equals(HEADER_VALUE)) {
                                headerValue = payload(p, ht, formats.header());
                            } else {
                                p.skipChildren();
                            }
                        }
                        headerKeys.add(headerKey);
                        headerValues.add(headerValue);
                    }
                }
                default -> p.skipChildren();
            }
        }
        return new ArchiveRecord(topic, partition, offset, timestamp, timestampType, key, value,
                headerKeys.toArray(new String[0]), headerValues.toArray(new byte[0][]));
    }

    private byte[] payload(JsonParser p, JsonToken t, PayloadFormat format) throws IOException {
        if (t == JsonToken.VALUE_NULL) {
            return null;
        }
        switch (format) {
            case STRING:
                return p.getText().getBytes(StandardCharsets.UTF_8);
            case JSON:
                return mapper.writeValueAsBytes(p.readValueAsTree());
            default:
                return p.getBinaryValue();
        }
    }
}
