package io.archiver.format.jsonl;

import io.archiver.config.ArchiveFormat;
import io.archiver.config.ArchiverConfig;
import io.archiver.config.JsonCompression;
import io.archiver.config.SinkLayout;
import io.archiver.format.ArchiveFileFormat;
import io.archiver.format.FormatReader;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;

import org.apache.flink.api.common.serialization.BulkWriter;

import java.util.List;

import static io.archiver.config.FormatOptions.SINK_JSONL_COMPRESSION;
import static io.archiver.config.FormatOptions.SINK_JSONL_GZIP_LEVEL;
import static io.archiver.config.FormatOptions.SINK_JSONL_ZSTD_LEVEL;

/** JSON Lines: one envelope object per line, uncompressed, gzip or zstd; a file holds one partition's records. */
public final class JsonLinesFormat implements ArchiveFileFormat {

    public static final JsonLinesFormat INSTANCE = new JsonLinesFormat();

    private JsonLinesFormat() {}

    @Override
    public ArchiveFormat id() {
        return ArchiveFormat.JSONL;
    }

    @Override
    public List<String> suffixes() {
        return List.of(suffix(JsonCompression.NONE), suffix(JsonCompression.GZIP), suffix(JsonCompression.ZSTD));
    }

    @Override
    public String suffix(ArchiverConfig config) {
        return suffix(config.get(SINK_JSONL_COMPRESSION));
    }

    /** The suffix of files written with {@code compression}. */
    public static String suffix(JsonCompression compression) {
        return switch (compression) {
            case GZIP -> ".jsonl.gz";
            case ZSTD -> ".jsonl.zst";
            case NONE -> ".jsonl";
        };
    }

    @Override
    public boolean writes(SinkLayout layout) {
        return layout == SinkLayout.PER_PARTITION;
    }

    @Override
    public BulkWriter.Factory<ArchiveRecord> writer(ArchiverConfig config, SinkLayout layout) {
        if (!writes(layout)) {
            throw new IllegalArgumentException("JSON Lines files hold one partition each; the " + layout + " layout needs Parquet");
        }
        JsonCompression compression = config.get(SINK_JSONL_COMPRESSION);
        int level = compression == JsonCompression.ZSTD ? config.get(SINK_JSONL_ZSTD_LEVEL) : config.get(SINK_JSONL_GZIP_LEVEL);
        return new JsonLinesWriterFactory(PayloadFormats.of(config), compression, level);
    }

    @Override
    public FormatReader reader(PayloadFormats payloads) {
        return new JsonLinesReader(payloads);
    }
}
