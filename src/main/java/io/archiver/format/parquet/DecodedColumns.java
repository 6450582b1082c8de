package io.archiver.format.parquet;

import io.archiver.registry.RegisteredSchema;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.Message;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.Type;

/** The typed columns of a decoded payload, by its reader schema's type: Avro ({@link AvroColumns}), JSON Schema ({@link JsonSchemaColumns}) or Protobuf ({@link ProtoColumns}). */
final class DecodedColumns {

    private DecodedColumns() {}

    /** The optional column (tree) named {@code name} of payloads read as {@code reader}. */
    static Type column(String name, RegisteredSchema reader) {
        if (reader.proto() != null) {
            return ProtoColumns.column(name, reader.proto());
        }
        return reader.json() != null ? JsonSchemaColumns.column(name, reader.json()) : AvroColumns.column(name, reader.avro());
    }

    /** Writes {@code decoded} (an Avro datum or a JSON tree read as {@code reader}) as field {@code name} at {@code index}. */
    static void writeField(RecordConsumer out, String name, int index, RegisteredSchema reader, Object decoded) {
        if (reader.proto() != null) {
            ProtoColumns.writeField(out, name, index, (Message) decoded);
        } else if (reader.json() != null) {
            JsonSchemaColumns.writeField(out, name, index, reader.json(), (JsonNode) decoded);
        } else {
            AvroColumns.writeField(out, name, index, reader.avro(), decoded);
        }
    }
}
