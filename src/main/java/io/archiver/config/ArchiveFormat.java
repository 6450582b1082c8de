package io.archiver.config;

/** File format of the archive. */
public enum ArchiveFormat implements ConfigValue {
    /** Apache Parquet, one file per bucket and checkpoint. */
    PARQUET,
    /** JSON Lines, one JSON object per record. */
    JSONL;

    @Override
    public String toString() {
        return configName();
    }
}
