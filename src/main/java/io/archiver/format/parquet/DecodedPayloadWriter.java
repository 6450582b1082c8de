package io.archiver.format.parquet;

import io.archiver.record.ArchiveRecord;
import io.archiver.registry.RegisteredSchema;
import io.archiver.registry.RegistryPayloads;
import io.archiver.registry.SchemaSource;
import io.archiver.registry.UndecodablePayload;

import org.apache.parquet.io.api.RecordConsumer;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * Writes a record's payload into its file's typed columns. An Avro payload written with the file's own schema goes
 * straight from its bytes into the columns ({@link AvroBinaryColumns}); one of another version, and JSON Schema and
 * Protobuf payloads, are decoded as the file's schema first ({@link RegistryPayloads#decode}, {@link DecodedColumns}).
 * Not thread-safe: one per sink subtask, shared by its files.
 */
final class DecodedPayloadWriter {

    private final RegistryPayloads payloads;
    private final Map<Integer, AvroBinaryColumns> compiled = new HashMap<>();

    DecodedPayloadWriter(SchemaSource registry) {
        this.payloads = new RegistryPayloads(registry);
    }

    /**
     * Writes {@code payload} of {@code r} read as {@code reader} as field {@code column} at {@code index}.
     *
     * @return true when the columns rebuild the payload byte for byte ({@link AvroColumnsEncoder})
     */
    boolean writeField(RecordConsumer out, String column, int index, byte[] payload, RegisteredSchema reader, ArchiveRecord r) throws IOException {
        try {
            RegisteredSchema writer = payloads.writerSchema(payload);
            if (writer.avro() != null && writer.sameAs(reader)) {
                return compiled.computeIfAbsent(reader.id(), id -> AvroBinaryColumns.of(reader.avro()))
                        .writeField(out, column, index, payload, RegistryPayloads.HEADER);
            }
            DecodedColumns.writeField(out, column, index, reader, payloads.decode(payload, writer, reader));
            return false;
        } catch (UndecodablePayload e) {
            throw e.afterValidation(r.toString());
        }
    }
}
