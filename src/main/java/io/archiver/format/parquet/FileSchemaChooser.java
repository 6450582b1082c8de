package io.archiver.format.parquet;

import io.archiver.config.PayloadFormat;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;
import io.archiver.registry.RegistryPayloads;
import io.archiver.registry.RegisteredSchema;
import io.archiver.registry.SchemaSource;
import io.archiver.registry.UndecodablePayload;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * Chooses the reader schemas of a writer's typed Parquet files, so that records of several schema versions
 * interleaved do not make a file per switch. A file's reader schema is the newest schema (highest id: registries
 * number schemas in the order they are registered) this writer has seen for the topic's keys or values that can
 * read its first record; a later record fits the file when its schema is no newer and the file's schema can read
 * it. So a file closes early only when a newer version arrives, or one the file's cannot read (a topic without
 * compatible versions): with BACKWARD, FULL or TRANSITIVE compatibility a writer makes one file per time folder and
 * partition per version at most, and after the newest arrives, none more. Not thread-safe: one per sink subtask.
 */
final class FileSchemaChooser {

    private final PayloadFormats formats;
    private final RegistryPayloads payloads;
    private final Map<String, RegisteredSchema> newestKey = new HashMap<>();
    private final Map<String, RegisteredSchema> newestValue = new HashMap<>();

    FileSchemaChooser(PayloadFormats formats, SchemaSource registry) {
        this.formats = formats;
        this.payloads = new RegistryPayloads(registry);
    }

    /** The reader schemas of a file whose first record is {@code first}. */
    FileSchemas choose(ArchiveRecord first) throws IOException {
        return new FileSchemas(
                choose(first.getTopic(), first.getKey(), formats.key(), newestKey),
                choose(first.getTopic(), first.getValue(), formats.value(), newestValue));
    }

    /** True when {@code r}'s key and value are no newer than the file's schemas and readable as them. */
    boolean fits(FileSchemas file, ArchiveRecord r) throws IOException {
        return fits(file.key(), r.getTopic(), r.getKey(), formats.key(), newestKey)
                && fits(file.value(), r.getTopic(), r.getValue(), formats.value(), newestValue);
    }

    private RegisteredSchema choose(String topic, byte[] payload, PayloadFormat format, Map<String, RegisteredSchema> newest) throws IOException {
        if (payload == null || !format.decodedWithRegistry()) {
            return null;
        }
        RegisteredSchema writer = writer(topic, payload, newest);
        RegisteredSchema latest = newest.get(topic);
        return payloads.canRead(latest, writer) ? latest : writer;
    }

    private boolean fits(RegisteredSchema reader, String topic, byte[] payload, PayloadFormat format, Map<String, RegisteredSchema> newest) throws IOException {
        if (payload == null || !format.decodedWithRegistry()) {
            return true;
        }
        if (reader == null) {
            return false;
        }
        RegisteredSchema writer = writer(topic, payload, newest);
        return writer.id() <= reader.id() && payloads.canRead(reader, writer);
    }

    private RegisteredSchema writer(String topic, byte[] payload, Map<String, RegisteredSchema> newest) throws IOException {
        RegisteredSchema writer;
        try {
            writer = payloads.writerSchema(payload);
        } catch (UndecodablePayload e) {
            throw e.afterValidation("of topic " + topic);
        }
        RegisteredSchema latest = newest.get(topic);
        if (latest == null || writer.id() > latest.id()) {
            newest.put(topic, writer);
        }
        return writer;
    }
}
