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
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Chooses the reader schemas of a writer's typed Parquet files, so that records of several schema versions
 * interleaved do not make a file per switch. A file's reader schema is the newest schema (highest id: registries
 * number schemas in the order they are registered) this writer knows for the topic's keys or values that can read
 * its first record; a later record fits the file when its schema is no newer and the file's schema can read it. So
 * a file closes early only when a newer version arrives, or one the file's cannot read (a topic without compatible
 * versions): with BACKWARD, FULL or TRANSITIVE compatibility a writer makes one file per time folder and partition
 * per version at most, and after the newest arrives, none more.
 *
 * <p>A writer knows the newest schema of a topic from the registry's latest version of its subject
 * ({@code <topic>-value}, {@code <topic>-key}: the default subject names) when it first meets the topic, and from
 * the records it reads after: so a writer restarted after a failure does not go back to an older version's files
 * when its first record is of an older version. For a Protobuf topic the latest version is a file of messages: its
 * message of the same full name as the topic's first record's is the newest. Topics whose subjects are named
 * otherwise learn it from the records only. Not thread-safe: one per sink subtask.
 */
final class FileSchemaChooser {

    private final PayloadFormats formats;
    private final SchemaSource registry;
    private final RegistryPayloads payloads;
    private final Newest newestKey = new Newest("-key");
    private final Newest newestValue = new Newest("-value");

    FileSchemaChooser(PayloadFormats formats, SchemaSource registry) {
        this.formats = formats;
        this.registry = registry;
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

    private RegisteredSchema choose(String topic, byte[] payload, PayloadFormat format, Newest newest) throws IOException {
        if (payload == null || !format.decodedWithRegistry()) {
            return null;
        }
        RegisteredSchema writer = writer(topic, payload, newest);
        RegisteredSchema latest = newest.of(topic);
        return payloads.canRead(latest, writer) ? latest : writer;
    }

    private boolean fits(RegisteredSchema reader, String topic, byte[] payload, PayloadFormat format, Newest newest) throws IOException {
        if (payload == null || !format.decodedWithRegistry()) {
            return true;
        }
        if (reader == null) {
            return false;
        }
        RegisteredSchema writer = writer(topic, payload, newest);
        return writer.id() <= reader.id() && payloads.canRead(reader, writer);
    }

    private RegisteredSchema writer(String topic, byte[] payload, Newest newest) throws IOException {
        RegisteredSchema writer;
        try {
            writer = payloads.writerSchema(payload);
        } catch (UndecodablePayload e) {
            throw e.afterValidation("of topic " + topic);
        }
        newest.saw(topic, writer);
        return writer;
    }

    /** The newest schema this writer knows for each topic's keys or values. */
    private final class Newest {

        private final String subjectSuffix;
        private final Map<String, Optional<RegisteredSchema>> byTopic = new HashMap<>();

        Newest(String subjectSuffix) {
            this.subjectSuffix = subjectSuffix;
        }

        /** The newest known schema of {@code topic}'s side, once {@link #saw} met the topic. */
        RegisteredSchema of(String topic) {
            return byTopic.getOrDefault(topic, Optional.empty()).orElse(null);
        }

        /** Learns from a record's {@code writer} schema; on the topic's first record, also from the registry's latest version of its subject. */
        void saw(String topic, RegisteredSchema writer) throws IOException {
            Optional<RegisteredSchema> known = byTopic.get(topic);
            if (known == null) {
                known = latestRegistered(topic, writer);
            }
            RegisteredSchema latest = known.orElse(null);
            byTopic.put(topic, latest == null || writer.id() > latest.id() ? Optional.of(writer) : known);
        }

        private Optional<RegisteredSchema> latestRegistered(String topic, RegisteredSchema first) throws IOException {
            OptionalInt id = registry.latestId(topic + subjectSuffix);
            if (id.isEmpty()) {
                return Optional.empty();
            }
            try {
                RegisteredSchema latest = registry.schema(id.getAsInt());
                if (latest.protoFile() == null) {
                    return Optional.of(latest);
                }
                // a Protobuf schema is a file of messages, and which one a record holds its own bytes say
                return first.proto() == null ? Optional.empty() : latest.withMessageNamed(first.proto().getFullName());
            } catch (UndecodablePayload e) {
                // a latest version the archiver cannot read: the records' own schemas decide
                return Optional.empty();
            }
        }
    }
}
