package io.archiver.format.jsonl;

import io.archiver.config.ArchiverConfig;

import org.apache.flink.configuration.ConfigOption;

import java.util.List;

import static org.apache.flink.configuration.ConfigOptions.key;

/** The options of JSON Lines files ({@code sink.jsonl.*}): compression and its levels. */
public final class JsonLinesOptions {

    public static final ConfigOption<JsonCompression> SINK_JSONL_COMPRESSION =
            key("sink.jsonl.compression")
                    .enumType(JsonCompression.class)
                    .defaultValue(JsonCompression.NONE)
                    .withDescription(
                            "Compression of JSON Lines files: none (.jsonl, read line by line by any tool), gzip (.jsonl.gz, "
                                    + "readable everywhere) or zstd (.jsonl.zst, read by zstd, DuckDB, Spark, Athena; faster to write "
                                    + "than none and about 0.6x its bytes, far cheaper in CPU than gzip). Compressing runs in the sink's "
                                    + "task thread.");

    public static final ConfigOption<Integer> SINK_JSONL_GZIP_LEVEL =
            key("sink.jsonl.gzip-level")
                    .intType()
                    .defaultValue(6)
                    .withDescription(
                            "Deflate level of gzip JSON Lines, 1 (fastest) to 9 (smallest); 6 is gzip's own default. Lower it "
                                    + "when the sink's CPU limits the rate.");

    public static final ConfigOption<Integer> SINK_JSONL_ZSTD_LEVEL =
            key("sink.jsonl.zstd-level")
                    .intType()
                    .defaultValue(1)
                    .withDescription(
                            "zstd level of zstd JSON Lines, 1 (fastest) to 19 (smallest). Every open part file holds a "
                                    + "compression context outside the heap, larger at higher levels.");

    /** Every option of this format, in the order of the configuration reference. */
    static final List<ConfigOption<?>> ALL = List.of(
            SINK_JSONL_COMPRESSION,
            SINK_JSONL_GZIP_LEVEL,
            SINK_JSONL_ZSTD_LEVEL);

    /** Fails on compression levels out of range. */
    static void validate(ArchiverConfig config) {
        int gzipLevel = config.get(SINK_JSONL_GZIP_LEVEL);
        config.positive(SINK_JSONL_GZIP_LEVEL, gzipLevel >= 1 && gzipLevel <= 9, "1 (fastest) to 9 (smallest)");
        config.zstdLevel(SINK_JSONL_ZSTD_LEVEL);
    }

    private JsonLinesOptions() {}
}
