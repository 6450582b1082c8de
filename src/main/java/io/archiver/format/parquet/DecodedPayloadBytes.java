package io.archiver.format.parquet;

import io.archiver.config.ConfigValue;

/** What a Parquet file keeps of a key or value decoded into typed columns besides the columns. */
public enum DecodedPayloadBytes implements ConfigValue {
    /** Its exact bytes, in the {@code key} or {@code value} column. */
    KEEP,
    /** Its exact bytes only where the typed columns cannot rebuild them byte for byte. */
    REBUILD;

    @Override
    public String toString() {
        return configName();
    }
}
