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
import java.util.HashMap;
import java.util.Map;

import static io.archiver.record.EnvelopeFields.*;
import static io.archiver.format.parquet.ParquetEnvelope.*;

/** Writes {@link ArchiveRecord}s in the {@link ParquetEnvelope} schema, straight from their bytes. */
final class EnvelopeWriteSupport extends WriteSupport<ArchiveRecord> {

    static final String VERSION_KEY = "kafka-s3-archiver.envelope.version";

    private final PayloadFormats formats;
    private final FileSchemas file;
    private final FileSchemaChooser decoder;
    private final MessageType schema;
    private RecordConsumer consumer;
    private String lastTopic;
    private Binary lastTopicBinary;

    EnvelopeWriteSupport(PayloadFormats formats) {
        this(formats, FileSchemas.NONE, null);
    }

    /** With the decoded columns of {@code file}'s reader schemas, decoded by {@code decoder}. */
    EnvelopeWriteSupport(PayloadFormats formats, FileSchemas file, FileSchemaChooser decoder) {
        this.formats = formats;
        this.file = file;
        this.decoder = decoder;
        this.schema = ParquetEnvelope.schema(formats, file);
    }

    @Override
    public WriteContext init(Configuration configuration) {
        Map<String, String> metadata = new HashMap<>(Map.of(
                VERSION_KEY, EnvelopeFields.SCHEMA_VERSION,
                "kafka-s3-archiver.key.format", formats.key().configName(),
                "kafka-s3-archiver.value.format", formats.value().configName(),
                "kafka-s3-archiver.header.format", formats.header().configName()));
        if (file.key() != null) {
            metadata.put("kafka-s3-archiver.key.reader-schema-id", Integer.toString(file.key().id()));
        }
        if (file.value() != null) {
            metadata.put("kafka-s3-archiver.value.reader-schema-id", Integer.toString(file.value().id()));
        }
        return new WriteContext(schema, metadata);
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
        consumer.addBinary(Binary.fromString(r.getTimestampType()));
        consumer.endField(TIMESTAMP_TYPE, TIMESTAMP_TYPE_INDEX);
        optionalBinary(KEY, KEY_INDEX, r.getKey());
        optionalBinary(VALUE, VALUE_INDEX, r.getValue());
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
                consumer.addBinary(Binary.fromString(keys[i]));
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
        if (formats.decoded()) {
            try {
                decoded(r, r.getKey(), formats.key(), file.key(), KEY_SCHEMA_ID, KEY_DECODED);
                decoded(r, r.getValue(), formats.value(), file.value(), VALUE_SCHEMA_ID, VALUE_DECODED);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        consumer.endMessage();
    }

    private void decoded(ArchiveRecord r, byte[] payload, PayloadFormat format, RegisteredSchema reader, String idColumn, String decodedColumn)
            throws IOException {
        if (payload == null || !format.decodedWithRegistry()) {
            return;
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
        DecodedColumns.writeField(consumer, decodedColumn, idIndex + 1, reader, decoder.decode(payload, reader, r));
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
            lastTopicBinary = Binary.fromString(topic);
        }
        return lastTopicBinary;
    }
}
