package io.archiver.config;

/** JSON Lines compression. */
public enum JsonCompression implements ConfigValue {
    /** plain text, suffix .jsonl. */
    NONE,
    /** one gzip stream per file, suffix .jsonl.gz. */
    GZIP,
    /** one zstd frame per file, suffix .jsonl.zst. */
    ZSTD;

    @Override
    public String toString() {
        return configName();
    }
}
