package io.archiver.format;

import io.archiver.config.ArchiveFormat;
import io.archiver.config.ArchiverConfig;
import io.archiver.config.JsonCompression;
import io.archiver.config.SinkLayout;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;

import org.apache.flink.api.common.serialization.BulkWriter;

import static io.archiver.config.ArchiverOptions.*;

/** The archive file writers that a configuration asks for: the job's sink and repair write with the same ones. */
public final class ArchiveWriters {

    private ArchiveWriters() {}

    /** The writer of archive files in the configured format, compression, payload formats and layout. */
    public static BulkWriter.Factory<ArchiveRecord> of(ArchiverConfig config) {
        JsonCompression jsonCompression = config.get(SINK_JSONL_COMPRESSION);
        PayloadFormats formats = PayloadFormats.of(config);
        if (config.get(SINK_FORMAT) == ArchiveFormat.PARQUET) {
            EnvelopeParquetBuilder parquet = new EnvelopeParquetBuilder(
                    formats,
                    config.get(SINK_PARQUET_COMPRESSION),
                    config.get(SINK_PARQUET_ZSTD_LEVEL),
                    config.get(SINK_PARQUET_ROW_GROUP_SIZE).getBytes(),
                    (int) config.get(SINK_PARQUET_PAGE_SIZE).getBytes());
            return config.get(SINK_LAYOUT) == SinkLayout.PER_TOPIC
                    ? new GroupedParquetWriterFactory(parquet)
                    : new EnvelopeParquetWriterFactory(parquet);
        }
        return new JsonLinesWriterFactory(formats, jsonCompression,
                jsonCompression == JsonCompression.ZSTD ? config.get(SINK_JSONL_ZSTD_LEVEL) : config.get(SINK_JSONL_GZIP_LEVEL));
    }

    /** The file name suffix of the configured format and compression. */
    public static String suffix(ArchiverConfig config) {
        return ArchiveLayout.suffix(config.get(SINK_FORMAT), config.get(SINK_JSONL_COMPRESSION));
    }
}
