package io.archiver.config;

/** How a key, value or header value is stored. */
public enum PayloadFormat implements ConfigValue {
    /** raw bytes (Parquet BINARY; base64 in JSON Lines). */
    BYTES("bytes"),
    /** UTF-8 text (Parquet STRING; a JSON string in JSON Lines). */
    STRING("string"),
    /** a JSON document (Parquet JSON; an embedded object in JSON Lines). */
    JSON("json");

    private final String configName;

    PayloadFormat(String configName) {
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
