package io.archiver.config;

/** How a key, value or header value is stored. */
public enum PayloadFormat implements ConfigValue {
    /** raw bytes (Parquet BINARY; base64 in JSON Lines). */
    BYTES,
    /** UTF-8 text (Parquet STRING; a JSON string in JSON Lines). */
    STRING,
    /** a JSON document (Parquet JSON; an embedded object in JSON Lines). */
    JSON,
    /**
     * Avro in the Confluent wire format (magic byte 0, the 4-byte schema id, Avro binary), decoded with the schema
     * the registry has under that id: the exact bytes are kept, and beside them the schema id and the decoded value
     * (typed Parquet columns; a JSON object in JSON Lines).
     */
    AVRO;

    /** True when payloads of this format are decoded with a schema from the Schema Registry. */
    public boolean decodedWithRegistry() {
        return this == AVRO;
    }

    @Override
    public String toString() {
        return configName();
    }
}
