package io.archiver.format.parquet;

import org.apache.avro.Schema;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.schema.MessageType;

import static io.archiver.record.EnvelopeFields.*;

/**
 * The typed columns of a file that may have left payloads out for them to rebuild
 * ({@code sink.parquet.decoded-payload-bytes: rebuild}), read beside the envelope's columns: a row object of the
 * typed columns alone, and a key or value the file left out rebuilt from it with the file's Avro reader schema.
 */
final class RebuiltPayloads {

    private final MessageType typed;
    private final Schema keySchema;
    private final Schema valueSchema;
    private final GroupRecordConverter rows;
    private final GroupConverter root;

    /** {@code typed}: the file's schema ids and typed columns; the schemas: the file's, null where it has none. */
    RebuiltPayloads(MessageType typed, Schema keySchema, Schema valueSchema) {
        this.typed = typed;
        this.keySchema = keySchema;
        this.valueSchema = valueSchema;
        this.rows = new GroupRecordConverter(typed);
        this.root = rows.getRootConverter();
    }

    /** The converter of the typed column {@code name}. */
    Converter converter(String name) {
        return root.getConverter(typed.getFieldIndex(name));
    }

    /** A row begins. */
    void start() {
        root.start();
    }

    /** The row's typed columns are read. */
    void end() {
        root.end();
    }

    /** The row's key: {@code kept}, or rebuilt from its typed columns where the file left it out. */
    byte[] key(byte[] kept) {
        return payload(kept, KEY_SCHEMA_ID, KEY_DECODED, keySchema);
    }

    /** The row's value: {@code kept}, or rebuilt from its typed columns where the file left it out. */
    byte[] value(byte[] kept) {
        return payload(kept, VALUE_SCHEMA_ID, VALUE_DECODED, valueSchema);
    }

    private byte[] payload(byte[] kept, String idColumn, String decodedColumn, Schema schema) {
        // a file with a reader schema in its footer has the id and typed columns; a null payload has no id
        if (kept != null || schema == null || !typed.containsField(idColumn)) {
            return kept;
        }
        Group g = rows.getCurrentRecord();
        return g.getFieldRepetitionCount(idColumn) == 0 ? null : AvroColumnsEncoder.encode(g.getInteger(idColumn, 0), schema, g, decodedColumn);
    }
}
