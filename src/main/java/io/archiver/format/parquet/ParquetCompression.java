package io.archiver.format.parquet;

import io.archiver.config.ConfigValue;

/** Parquet compression codec. */
public enum ParquetCompression implements ConfigValue {
    /** Snappy. */
    SNAPPY,
    /** Zstandard. */
    ZSTD,
    /** gzip. */
    GZIP,
    /** uncompressed. */
    NONE;

    @Override
    public String toString() {
        return configName();
    }
}
