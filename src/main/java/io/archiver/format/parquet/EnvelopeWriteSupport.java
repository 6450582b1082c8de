package io.archiver.format.parquet;

import io.archiver.record.ArchiveRecord;
import io.archiver.record.EnvelopeFields;
import io.archiver.config.PayloadFormat;
import io.archiver.record.PayloadFormats;
import io.archiver.registry.RegistryPayloads;
import io.archiver.registry.RegisteredSchema;
import io.archiver.registry.UndecodablePayload;

import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.MessageType;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

import static io.archiver.record.EnvelopeFields.*;
import static io.archiver.format.parquet.ParquetEnvelope.*;

/** Writes {@link ArchiveRecord}s in the {@link ParquetEnvelope} schema, straight from their bytes. */
final class EnvelopeWriteSupport extends WriteSupport<ArchiveRecord> {

    static final String VERSION_KEY = "kafka-s3-archiver.envelope.version";
    private static final int MAX_NAMES = 1_024;
    /** The footer key of the Avro text of a file's key reader schema; {@link #VALUE_SCHEMA_KEY} the value's. */
    static final String KEY_SCHEMA_KEY = "kafka-s3-archiver.key.reader-schema";
    static final String VALUE_SCHEMA_KEY = "kafka-s3-archiver.value.reader-schema";
    /**
     * The footer key that says whether a file with typed columns kept every payload's bytes ({@link #PAYLOADS_KEPT},
     * so that readers need only the envelope's columns) or may have left some out for the typed columns to rebuild.
     */
    static final String PAYLOAD_BYTES_KEY = "kafka-s3-archiver.decoded-payload-bytes";
    static final String PAYLOADS_KEPT = DecodedPayloadBytes.KEEP.configName();

    private final PayloadFormats formats;
    private final FileSchemas file;
    private final DecodedPayloadWriter decoded;
    /** True when payloads the typed columns rebuild exactly are left out of the key and value columns. */
    private final boolean rebuild;
    private final MessageType schema;
    private RecordConsumer consumer;
    private String lastTopic;
    private Binary lastTopicBinary;
    /** Header keys and timestamp types as Parquet binaries: a topic's records mostly share a few. */
    private final Map<String, Binary> names = new HashMap<>();

    EnvelopeWriteSupport(PayloadFormats formats) {
        this(formats, FileSchemas.NONE, null, DecodedPayloadBytes.KEEP);
    }

    /** With the decoded columns of {@code file}'s reader schemas, written by {@code decoded}. */
    EnvelopeWriteSupport(PayloadFormats formats, FileSchemas file, DecodedPayloadWriter decoded, DecodedPayloadBytes bytes) {
        this.formats = formats;
        this.file = file;
        this.decoded = decoded;
        this.rebuild = bytes == DecodedPayloadBytes.REBUILD;
        this.schema = ParquetEnvelope.schema(formats, file);
    }

    @Override
    public WriteContext init(Configuration configuration) {
        Map<String, String> metadata = new HashMap<>(Map.of(
                VERSION_KEY, EnvelopeFields.SCHEMA_VERSION,
                "kafka-s3-archiver.key.format", formats.key().configName(),
                "kafka-s3-archiver.value.format", formats.value().configName(),
                "kafka-s3-archiver.header.format", formats.header().configName()));
        readerSchema(metadata, file.key(), "kafka-s3-archiver.key.reader-schema-id", KEY_SCHEMA_KEY);
        readerSchema(metadata, file.value(), "kafka-s3-archiver.value.reader-schema-id", VALUE_SCHEMA_KEY);
        if (formats.decoded()) {
            metadata.put(PAYLOAD_BYTES_KEY, (rebuild ? DecodedPayloadBytes.REBUILD : DecodedPayloadBytes.KEEP).configName());
        }
        return new WriteContext(schema, metadata);
    }

    /** A reader schema's id and, for Avro, its text: what rebuilds payloads left out of the file. */
    private static void readerSchema(Map<String, String> metadata, RegisteredSchema reader, String idKey, String schemaKey) {
        if (reader != null) {
            metadata.put(idKey, Integer.toString(reader.id()));
            if (reader.avro() != null) {
                metadata.put(schemaKey, reader.avro().toString());
            }
        }
    }

    @Override
    public void prepareForWrite(RecordConsumer recordConsumer) {
        this.consumer = recordConsumer;
    }

    @Override
    public void write(ArchiveRecord r) {
        consumer.startMessage();
        consumer.startField(TOPIC, TOPIC_INDEX);
        consumer.addBinary(topicBinary(r.getTopic()));
        consumer.endField(TOPIC, TOPIC_INDEX);
        consumer.startField(PARTITION, PARTITION_INDEX);
        consumer.addInteger(r.getPartition());
        consumer.endField(PARTITION, PARTITION_INDEX);
        consumer.startField(OFFSET, OFFSET_INDEX);
        consumer.addLong(r.getOffset());
        consumer.endField(OFFSET, OFFSET_INDEX);
        consumer.startField(TIMESTAMP, TIMESTAMP_INDEX);
        consumer.addLong(r.getTimestamp());
        consumer.endField(TIMESTAMP, TIMESTAMP_INDEX);
        consumer.startField(TIMESTAMP_TYPE, TIMESTAMP_TYPE_INDEX);
        consumer.addBinary(name(r.getTimestampType()));
        consumer.endField(TIMESTAMP_TYPE, TIMESTAMP_TYPE_INDEX);
        consumer.startField(HEADERS, HEADERS_INDEX);
        consumer.startGroup();
        String[] keys = r.getHeaderKeys();
        if (keys.length > 0) {
            byte[][] values = r.getHeaderValues();
            consumer.startField("list", 0);
            for (int i = 0; i < keys.length; i++) {
                consumer.startGroup();
                consumer.startField("element", 0);
                consumer.startGroup();
                consumer.startField(HEADER_KEY, 0);
                consumer.addBinary(name(keys[i]));
                consumer.endField(HEADER_KEY, 0);
                optionalBinary(HEADER_VALUE, 1, values[i]);
                consumer.endGroup();
                consumer.endField("element", 0);
                consumer.endGroup();
            }
            consumer.endField("list", 0);
        }
        consumer.endGroup();
        consumer.endField(HEADERS, HEADERS_INDEX);
        boolean keyRebuilt = false;
        boolean valueRebuilt = false;
        if (formats.decoded()) {
            try {
                keyRebuilt = writeDecoded(r, r.getKey(), formats.key(), file.key(), KEY_SCHEMA_ID, KEY_DECODED) && rebuild;
                valueRebuilt = writeDecoded(r, r.getValue(), formats.value(), file.value(), VALUE_SCHEMA_ID, VALUE_DECODED) && rebuild;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        // after the typed columns, which tell whether they rebuild the bytes (a record's fields go in any order)
        if (!keyRebuilt) {
            optionalBinary(KEY, KEY_INDEX, r.getKey());
        }
        if (!valueRebuilt) {
            optionalBinary(VALUE, VALUE_INDEX, r.getValue());
        }
        consumer.endMessage();
    }

    /** Writes a payload's schema id and typed columns; true when they rebuild its bytes exactly. */
    private boolean writeDecoded(ArchiveRecord r, byte[] payload, PayloadFormat format, RegisteredSchema reader, String idColumn, String decodedColumn)
            throws IOException {
        if (payload == null || !format.decodedWithRegistry()) {
            return false;
        }
        int id;
        try {
            id = RegistryPayloads.schemaId(payload);
        } catch (UndecodablePayload e) {
            throw e.afterValidation(r.toString());
        }
        int idIndex = schema.getFieldIndex(idColumn);
        consumer.startField(idColumn, idIndex);
        consumer.addInteger(id);
        consumer.endField(idColumn, idIndex);
        if (reader == null) {
            throw new IOException("Record " + r + " has a " + decodedColumn + " its file has no columns for");
        }
        return decoded.writeField(consumer, decodedColumn, idIndex + 1, payload, reader, r);
    }

    private void optionalBinary(String field, int index, byte[] bytes) {
        if (bytes != null) {
            consumer.startField(field, index);
            consumer.addBinary(Binary.fromConstantByteArray(bytes));
            consumer.endField(field, index);
        }
    }

    private Binary topicBinary(String topic) {
        if (!topic.equals(lastTopic)) {
            lastTopic = topic;
            lastTopicBinary = utf8(topic);
        }
        return lastTopicBinary;
    }

    private Binary name(String name) {
        Binary binary = names.get(name);
        if (binary == null) {
            if (names.size() >= MAX_NAMES) {
                names.clear();
            }
            binary = utf8(name);
            names.put(name, binary);
        }
        return binary;
    }

    /**
     * A string as an array-backed binary: statistics compare it with every value of its column, which for Parquet's
     * {@code Binary.fromString} (buffer-backed) was a twentieth of the sink's time, profiled.
     */
    static Binary utf8(String s) {
        return Binary.fromConstantByteArray(s.getBytes(StandardCharsets.UTF_8));
    }
}
