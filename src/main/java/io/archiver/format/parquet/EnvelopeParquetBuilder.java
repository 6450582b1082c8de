package io.archiver.format.parquet;

import io.archiver.record.ArchiveRecord;
import io.archiver.record.EnvelopeFields;
import io.archiver.record.PayloadFormats;
import io.archiver.registry.SchemaRegistryClient;
import io.archiver.registry.SchemaSource;

import org.apache.flink.formats.parquet.ParquetBuilder;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.codec.ZstandardCodec;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.OutputFile;

import java.io.IOException;
import java.lang.reflect.Field;
import java.util.List;

/** Creates the Parquet writer of one part file; ships only formats, codec, zstd level and sizes. */
public final class EnvelopeParquetBuilder implements ParquetBuilder<ArchiveRecord> {

    private static final long serialVersionUID = 1L;
    private static final String HEADER_KEY_PATH =
            String.join(".", EnvelopeFields.HEADERS, "list", "element", EnvelopeFields.HEADER_KEY);
    private static final String HEADER_VALUE_PATH =
            String.join(".", EnvelopeFields.HEADERS, "list", "element", EnvelopeFields.HEADER_VALUE);

    private final PayloadFormats formats;
    private final ParquetCompression compression;
    private final int zstdLevel;
    private final long rowGroupSize;
    private final int pageSize;
    private DecodedPayloadBytes decodedPayloadBytes = ParquetOptions.SINK_PARQUET_DECODED_PAYLOAD_BYTES.defaultValue();
    private List<String> bloomFilterColumns = List.of();
    private transient CompressionCodecFactory codecs;
    private transient RecyclingHeapAllocator allocator;
    private transient Configuration hadoop;
    private transient FileSchemaChooser schemas;
    private transient DecodedPayloadWriter decoded;

    /** {@code zstdLevel}: the level of zstd compression, unused by the other codecs. */
    public EnvelopeParquetBuilder(
            PayloadFormats formats, ParquetCompression compression, int zstdLevel, long rowGroupSize, int pageSize) {
        this.formats = formats;
        this.compression = compression;
        this.zstdLevel = zstdLevel;
        this.rowGroupSize = rowGroupSize;
        this.pageSize = pageSize;
    }

    /** What files keep of decoded payloads besides their typed columns ({@code sink.parquet.decoded-payload-bytes}). */
    public EnvelopeParquetBuilder decodedPayloadBytes(DecodedPayloadBytes bytes) {
        this.decodedPayloadBytes = bytes;
        return this;
    }

    @Override
    public ParquetWriter<ArchiveRecord> createWriter(OutputFile out) throws IOException {
        return createWriter(out, FileSchemas.NONE, true);
    }

    /** The columns whose Bloom filters files carry ({@code sink.parquet.bloom-filter-columns}); none by default. */
    public EnvelopeParquetBuilder bloomFilters(List<String> columns) {
        this.bloomFilterColumns = List.copyOf(columns);
        return this;
    }

    /** Heap an open file holds for its Bloom filters while it writes a row group. */
    long bloomFilterHeap() {
        return BloomFilters.heap(bloomFilterColumns);
    }

    /** A writer whose files have the decoded columns of {@code file}'s reader schemas. */
    ParquetWriter<ArchiveRecord> createWriter(OutputFile out, FileSchemas file) throws IOException {
        return createWriter(out, file, true);
    }

    /** True when keys or values are decoded into typed columns: a file's schema then depends on its records. */
    boolean typed() {
        return formats.decoded();
    }

    /** How many columns files of {@code file}'s reader schemas have beyond the envelope's (schema ids, typed columns). */
    int typedColumns(FileSchemas file) {
        return ParquetEnvelope.schema(formats, file).getColumns().size() - ParquetEnvelope.schema(formats).getColumns().size();
    }

    /** The chooser of this writer's (this sink subtask's) typed files' reader schemas, with the JVM's registry client. */
    FileSchemaChooser schemas() {
        if (schemas == null) {
            useSchemas(SchemaRegistryClient.shared(formats.registry()));
        }
        return schemas;
    }

    /** The writer of this subtask's typed columns, with the same registry client as {@link #schemas()}. */
    private DecodedPayloadWriter decodedPayloads() {
        schemas();
        return decoded;
    }

    /** Schemas from {@code source} instead of the registry (tests of the typed columns without a registry). */
    void useSchemas(SchemaSource source) {
        schemas = new FileSchemaChooser(formats, source);
        decoded = new DecodedPayloadWriter(source);
    }

    /**
     * {@code ours}: the writers of values and buffers of the sink ({@link CompactDictionaryWriters},
     * {@link RecyclingHeapAllocator}), else Parquet's own (to compare them).
     */
    ParquetWriter<ArchiveRecord> createWriter(OutputFile out, boolean ours) throws IOException {
        return createWriter(out, FileSchemas.NONE, ours);
    }

    private ParquetWriter<ArchiveRecord> createWriter(OutputFile out, FileSchemas file, boolean ours) throws IOException {
        // A dictionary only for header keys, which repeat in every file. Values, offsets and timestamps are mostly
        // unique (dictionary-encoding values was a quarter of the writer's time, profiled), topic and partition
        // are constant in a file (plain encoding compresses them to nothing). Header values are often unique
        // (trace ids, sequence numbers): a dictionary of them took a fifth of the writer's time and made files
        // larger, and with values that repeat it saved under 0.1 % of the bytes. Keys: their dictionary's lookups
        // were a tenth of the writer's time, and without it files were no larger with zstd (10 to 1,000,000
        // distinct keys: at most 0.04 % larger with 10; docs/benchmarks.md). Every dictionary costs an open file
        // heap (172 KB per open file with all columns, 40 KB with none, measured), which decides how many partitions
        // and time folders fit in a heap; CompactDictionaryWriters makes the rest grow with data.
        // No min/max statistics for values and header values: opaque bytes no query filters on by range, and
        // comparing each value with its column's bounds was 7 % of the writer's time; their null counts go
        // with them. Keys, offsets, timestamps, partitions keep theirs (readers skip row groups by them).
        Builder builder = new Builder(out, formats, file, file == FileSchemas.NONE ? null : decodedPayloads(), decodedPayloadBytes, ours);
        return BloomFilters.enable(builder, bloomFilterColumns)
                .withDictionaryEncoding(false)
                .withDictionaryEncoding(HEADER_KEY_PATH, true)
                .withStatisticsEnabled(EnvelopeFields.VALUE, false)
                .withStatisticsEnabled(HEADER_VALUE_PATH, false)
                // sizes per page for readers that plan memory by them (none of DuckDB, Spark, Trino, Athena yet):
                // 2 % of the sink's time, profiled
                .withSizeStatisticsEnabled(false)
                .withConf(hadoop())
                .withCodecFactory(codecs())
                .withAllocator(ours ? allocator() : new HeapByteBufferAllocator())
                .withCompressionCodec(codec(compression))
                .withRowGroupSize(rowGroupSize)
                .withPageSize(pageSize)
                .build();
    }

    /**
     * One Hadoop configuration for every file of this subtask, without Hadoop's default resources. A Parquet
     * writer otherwise makes a fresh one, which parses Hadoop's default XML files when the writer reads it: that
     * was most of the cost of opening a file (profiled with thousands of open files), and none of it is used.
     */
    private Configuration hadoop() {
        if (hadoop == null) {
            hadoop = new Configuration(false);
            // Hadoop looks classes up through its configuration's loader, by default the thread's context
            // loader: in the sink that is the file system's (FileSinkInContext), which has no Parquet.
            hadoop.setClassLoader(EnvelopeParquetBuilder.class.getClassLoader());
            hadoop.setInt(ZstandardCodec.PARQUET_COMPRESS_ZSTD_LEVEL, zstdLevel);
        }
        return hadoop;
    }

    /**
     * One codec factory for every file of this subtask. A Parquet writer otherwise makes its own, whose
     * compressor allocates a page-sized output buffer: 1 MB of heap per open file by default, which is what
     * exhausted a 1 GiB heap with 1,000 partitions in hour folders (thousands of open files). Files are
     * written by the task thread one call at a time and a page's compressed bytes are copied before the next
     * page is compressed, as between the columns of one file, which already share one compressor.
     */
    private CompressionCodecFactory codecs() {
        if (codecs == null) {
            codecs = new SharedCodecs(new CodecFactory(hadoop(), pageSize), new ZstdPageCompressor(zstdLevel));
        }
        return codecs;
    }

    /** One allocator of page buffers for every file of this subtask, keeping up to four pages' worth of released ones. */
    private RecyclingHeapAllocator allocator() {
        if (allocator == null) {
            allocator = new RecyclingHeapAllocator(4L * pageSize);
        }
        return allocator;
    }

    /**
     * A codec factory shared by the files of a subtask: a file that closes does not release it. zstd pages are
     * compressed in one call each ({@link ZstdPageCompressor}), the other codecs by Parquet's.
     */
    private static final class SharedCodecs implements CompressionCodecFactory {
        private final CompressionCodecFactory codecs;
        private final ZstdPageCompressor zstd;

        SharedCodecs(CompressionCodecFactory codecs, ZstdPageCompressor zstd) {
            this.codecs = codecs;
            this.zstd = zstd;
        }

        @Override
        public BytesInputCompressor getCompressor(CompressionCodecName codecName) {
            return codecName == CompressionCodecName.ZSTD ? zstd : codecs.getCompressor(codecName);
        }

        @Override
        public BytesInputDecompressor getDecompressor(CompressionCodecName codecName) {
            return codecs.getDecompressor(codecName);
        }

        @Override
        public void release() {}
    }

    static CompressionCodecName codec(ParquetCompression compression) {
        switch (compression) {
            case ZSTD:
                return CompressionCodecName.ZSTD;
            case GZIP:
                return CompressionCodecName.GZIP;
            case NONE:
                return CompressionCodecName.UNCOMPRESSED;
            default:
                return CompressionCodecName.SNAPPY;
        }
    }

    private static final class Builder extends ParquetWriter.Builder<ArchiveRecord, Builder> {
        /** Where Parquet's builder keeps its page settings; it offers no setter for the writers of values. */
        private static final Field PAGE_SETTINGS = pageSettingsField();

        private final PayloadFormats formats;
        private final FileSchemas file;
        private final DecodedPayloadWriter decoded;
        private final DecodedPayloadBytes decodedPayloadBytes;

        Builder(OutputFile out, PayloadFormats formats, FileSchemas file, DecodedPayloadWriter decoded,
                DecodedPayloadBytes decodedPayloadBytes, boolean ours) {
            super(out);
            this.formats = formats;
            this.file = file;
            this.decoded = decoded;
            this.decodedPayloadBytes = decodedPayloadBytes;
            if (!ours) {
                return;
            }
            try {
                ((ParquetProperties.Builder) PAGE_SETTINGS.get(this)).withValuesWriterFactory(new CompactDictionaryWriters());
            } catch (IllegalAccessException e) {
                throw new IllegalStateException("Cannot set the Parquet writer's values writers", e);
            }
        }

        private static Field pageSettingsField() {
            try {
                Field field = ParquetWriter.Builder.class.getDeclaredField("encodingPropsBuilder");
                field.setAccessible(true);
                return field;
            } catch (NoSuchFieldException e) {
                throw new IllegalStateException(
                        "This Parquet version's writer builder has no field encodingPropsBuilder (written for parquet-hadoop 1.15)", e);
            }
        }

        @Override
        protected Builder self() {
            return this;
        }

        @Override
        protected WriteSupport<ArchiveRecord> getWriteSupport(Configuration conf) {
            return new EnvelopeWriteSupport(formats, file, decoded, decodedPayloadBytes);
        }
    }
}
