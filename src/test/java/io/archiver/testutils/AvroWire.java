package io.archiver.testutils;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/** Avro datums in the Confluent wire format, as a producer with a registry serializer writes them. */
public final class AvroWire {

    private AvroWire() {}

    /** Magic byte 0, {@code schemaId} big-endian, then {@code datum}'s Avro binary encoding with {@code schema}. */
    public static byte[] encode(int schemaId, Schema schema, Object datum) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(0);
        out.write(schemaId >>> 24);
        out.write(schemaId >>> 16);
        out.write(schemaId >>> 8);
        out.write(schemaId);
        try {
            BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
            new GenericDatumWriter<>(schema).write(datum, encoder);
            encoder.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
