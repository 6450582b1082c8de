package io.archiver.format.parquet;

import io.archiver.config.ArchiverConfig;
import io.archiver.config.SinkLayout;
import io.archiver.format.FileFormat;
import io.archiver.format.FormatReader;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;

import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.Path;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.archiver.format.parquet.ParquetOptions.SINK_PARQUET_COMPRESSION;
import static io.archiver.format.parquet.ParquetOptions.SINK_PARQUET_DECODED_PAYLOAD_BYTES;
import static io.archiver.format.parquet.ParquetOptions.SINK_PARQUET_PAGE_SIZE;
import static io.archiver.format.parquet.ParquetOptions.SINK_PARQUET_ROW_GROUP_SIZE;
import static io.archiver.format.parquet.ParquetOptions.SINK_PARQUET_ZSTD_LEVEL;

/**
 * Apache Parquet: the envelope as typed columns, compressed per column chunk. A file holds one partition's records
 * (per-partition layout) or many partitions' rows grouped by partition, with what it holds of each in its footer
 * (per-topic layout).
 */
public final class ParquetFormat implements FileFormat {

    public static final ParquetFormat INSTANCE = new ParquetFormat();

    private static final String SUFFIX = ".parquet";

    /** The instance {@link java.util.ServiceLoader} makes; elsewhere use {@link #INSTANCE}. */
    public ParquetFormat() {}

    @Override
    public String name() {
        return "parquet";
    }

    @Override
    public List<ConfigOption<?>> options() {
        return ParquetOptions.ALL;
    }

    @Override
    public Class<?> optionsClass() {
        return ParquetOptions.class;
    }

    @Override
    public void validate(ArchiverConfig config) {
        ParquetOptions.validate(config);
    }

    @Override
    public long openFileMemory(ArchiverConfig config) {
        return config.get(ParquetOptions.SINK_PARQUET_BUFFER_MEMORY).getBytes();
    }

    @Override
    public List<String> suffixes() {
        return List.of(SUFFIX);
    }

    @Override
    public String suffix(ArchiverConfig config) {
        return SUFFIX;
    }

    @Override
    public boolean writes(SinkLayout layout) {
        return true;
    }

    @Override
    public BulkWriter.Factory<ArchiveRecord> writer(ArchiverConfig config, SinkLayout layout) {
        EnvelopeParquetBuilder parquet = new EnvelopeParquetBuilder(
                PayloadFormats.of(config),
                config.get(SINK_PARQUET_COMPRESSION),
                config.get(SINK_PARQUET_ZSTD_LEVEL),
                config.get(SINK_PARQUET_ROW_GROUP_SIZE).getBytes(),
                (int) config.get(SINK_PARQUET_PAGE_SIZE).getBytes())
                .decodedPayloadBytes(config.get(SINK_PARQUET_DECODED_PAYLOAD_BYTES))
                .bloomFilters(ParquetOptions.bloomFilterColumns(config));
        return layout == SinkLayout.PER_TOPIC
                ? new GroupedParquetWriterFactory(parquet)
                : new EnvelopeParquetWriterFactory(parquet);
    }

    @Override
    public FormatReader reader(PayloadFormats payloads) {
        return new ParquetRecords();
    }

    @Override
    public long copyWithout(Path file, FSDataOutputStream out, Map<Integer, Set<Long>> drop) throws IOException {
        return ParquetRowRemoval.copyWithout(file, out, drop);
    }
}
