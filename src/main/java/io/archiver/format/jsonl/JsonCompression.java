package io.archiver.format.jsonl;

import io.archiver.config.ConfigValue;

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
