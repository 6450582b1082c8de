package io.archiver.format.jsonl;

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

import static io.archiver.format.jsonl.JsonLinesOptions.SINK_JSONL_COMPRESSION;
import static io.archiver.format.jsonl.JsonLinesOptions.SINK_JSONL_GZIP_LEVEL;
import static io.archiver.format.jsonl.JsonLinesOptions.SINK_JSONL_ZSTD_LEVEL;

/** JSON Lines: one envelope object per line, uncompressed, gzip or zstd; a file holds one partition's records. */
public final class JsonLinesFormat implements FileFormat {

    public static final JsonLinesFormat INSTANCE = new JsonLinesFormat();

    /** The instance {@link java.util.ServiceLoader} makes; elsewhere use {@link #INSTANCE}. */
    public JsonLinesFormat() {}

    @Override
    public String name() {
        return "jsonl";
    }

    @Override
    public List<ConfigOption<?>> options() {
        return JsonLinesOptions.ALL;
    }

    @Override
    public Class<?> optionsClass() {
        return JsonLinesOptions.class;
    }

    @Override
    public void validate(ArchiverConfig config) {
        JsonLinesOptions.validate(config);
    }

    @Override
    public long openFileMemory(ArchiverConfig config) {
        return 0; // its writers compress straight into the part file's stream
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

    @Override
    public long copyWithout(Path file, FSDataOutputStream out, Map<Integer, Set<Long>> drop) throws IOException {
        return JsonLinesLineRemoval.copyWithout(file, out, drop);
    }
}
