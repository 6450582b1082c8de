package io.archiver.registry;

import org.apache.avro.Schema;

/**
 * A schema the registry holds under {@code id}: its type ({@code AVRO}, {@code JSON} or {@code PROTOBUF}) and, as
 * the type has it, the parsed Avro schema or the shape of the JSON Schema (null otherwise).
 */
public record RegisteredSchema(int id, String type, Schema avro, JsonSchemaType json) {

    public static final String AVRO = "AVRO";
    public static final String JSON = "JSON";

    /** An Avro schema. */
    public RegisteredSchema(int id, Schema avro) {
        this(id, AVRO, avro, null);
    }

    /** A JSON Schema. */
    public RegisteredSchema(int id, JsonSchemaType json) {
        this(id, JSON, null, json);
    }
}
