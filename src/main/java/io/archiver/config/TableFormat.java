package io.archiver.config;

/** Whether the archive is also a table in a catalog, and which table format. */
public enum TableFormat implements ConfigValue {
    /** The folders only: engines list them to find the files. */
    NONE,
    /** Every checkpoint's files are appended to an Apache Iceberg table per topic, one snapshot per checkpoint. */
    ICEBERG;

    @Override
    public String toString() {
        return configName();
    }
}
