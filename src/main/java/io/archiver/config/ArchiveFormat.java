package io.archiver.config;

/** File format of the archive. */
public enum ArchiveFormat implements ConfigValue {
    /** Apache Parquet, one file per bucket and checkpoint. */
    PARQUET("parquet"),
    /** JSON Lines, one JSON object per record. */
    JSONL("jsonl");

    private final String configName;

    ArchiveFormat(String configName) {
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
