package io.archiver.format.parquet;

import io.archiver.record.ArchiveRecord;

import org.apache.avro.Schema;
import org.apache.parquet.example.data.Group;

import static io.archiver.record.EnvelopeFields.*;

/**
 * A record of a row read with its typed columns: a payload left out of the file
 * ({@code sink.parquet.decoded-payload-bytes: rebuild}) is rebuilt from its typed columns with the file's Avro reader
 * schema.
 */
final class RebuiltPayloads {

    private RebuiltPayloads() {}

    /** The record of row {@code g}; {@code keySchema} and {@code valueSchema} are the file's, null where it has none. */
    static ArchiveRecord record(Group g, Schema keySchema, Schema valueSchema) {
        Group headers = g.getGroup(HEADERS, 0);
        int n = headers.getFieldRepetitionCount("list");
        String[] keys = new String[n];
        byte[][] values = new byte[n][];
        for (int i = 0; i < n; i++) {
            Group element = headers.getGroup("list", i).getGroup("element", 0);
            keys[i] = element.getString(HEADER_KEY, 0);
            values[i] = optionalBytes(element, HEADER_VALUE);
        }
        return new ArchiveRecord(
                g.getString(TOPIC, 0),
                g.getInteger(PARTITION, 0),
                g.getLong(OFFSET, 0),
                g.getLong(TIMESTAMP, 0),
                g.getString(TIMESTAMP_TYPE, 0),
                payload(g, KEY, KEY_SCHEMA_ID, KEY_DECODED, keySchema),
                payload(g, VALUE, VALUE_SCHEMA_ID, VALUE_DECODED, valueSchema),
                keys,
                values);
    }

    /** A key or value: its bytes, or rebuilt from its typed columns where the file left them out. */
    private static byte[] payload(Group g, String field, String idColumn, String decodedColumn, Schema schema) {
        // a file with a reader schema in its footer has the id and typed columns; a null payload has no id
        if (g.getFieldRepetitionCount(field) > 0 || schema == null || g.getFieldRepetitionCount(idColumn) == 0) {
            return optionalBytes(g, field);
        }
        return AvroColumnsEncoder.encode(g.getInteger(idColumn, 0), schema, g, decodedColumn);
    }

    private static byte[] optionalBytes(Group g, String field) {
        return g.getFieldRepetitionCount(field) == 0 ? null : g.getBinary(field, 0).getBytes();
    }
}
