package io.archiver.config;

/** Parquet compression codec. */
public enum ParquetCompression implements ConfigValue {
    /** Snappy. */
    SNAPPY("snappy"),
    /** Zstandard. */
    ZSTD("zstd"),
    /** gzip. */
    GZIP("gzip"),
    /** uncompressed. */
    NONE("none");

    private final String configName;

    ParquetCompression(String configName) {
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
