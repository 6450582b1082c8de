package io.archiver.config;

/** JSON Lines compression. */
public enum JsonCompression implements ConfigValue {
    /** plain text, suffix .jsonl. */
    NONE("none"),
    /** one gzip stream per file, suffix .jsonl.gz. */
    GZIP("gzip"),
    /** one zstd frame per file, suffix .jsonl.zst. */
    ZSTD("zstd");

    private final String configName;

    JsonCompression(String configName) {
        this.configName = configName;
    }

    @Override
    public String configName() {
        return configName;
    }

    @Override
    public String toString() {
        return configName;
    }
}
