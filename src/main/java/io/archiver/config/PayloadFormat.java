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
    AVRO,
    /** JSON documents in the wire format, their schema a JSON Schema: kept and typed as {@link #AVRO} is. */
    JSON_SCHEMA,
    /** Protobuf messages in the wire format (message indexes, then the message), their schema a .proto file. */
    PROTOBUF,
    /** Whatever each record's schema id names (Avro, JSON Schema or Protobuf): for topics whose records mix them. */
    SCHEMA_REGISTRY;

    /** True when payloads of this format are decoded with a schema from the Schema Registry. */
    public boolean decodedWithRegistry() {
        return this == AVRO || this == JSON_SCHEMA || this == PROTOBUF || this == SCHEMA_REGISTRY;
    }

    /** True when a payload of this format may have a schema of {@code schemaType} (the registry's AVRO, JSON, PROTOBUF). */
    public boolean accepts(String schemaType) {
        return switch (this) {
            case AVRO -> schemaType.equals("AVRO");
            case JSON_SCHEMA -> schemaType.equals("JSON");
            case PROTOBUF -> schemaType.equals("PROTOBUF");
            case SCHEMA_REGISTRY -> schemaType.equals("AVRO") || schemaType.equals("JSON") || schemaType.equals("PROTOBUF");
            default -> false;
        };
    }

    @Override
    public String toString() {
        return configName();
    }
}
