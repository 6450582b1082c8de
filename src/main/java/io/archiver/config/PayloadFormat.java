package io.archiver.config;

/** How a key, value or header value is stored. */
public enum PayloadFormat implements ConfigValue {
    /** raw bytes (Parquet BINARY; base64 in JSON Lines). */
    BYTES,
    /** UTF-8 text (Parquet STRING; a JSON string in JSON Lines). */
    STRING,
    /** a JSON document (Parquet JSON; an embedded object in JSON Lines). */
    JSON;

    @Override
    public String toString() {
        return configName();
    }
}
