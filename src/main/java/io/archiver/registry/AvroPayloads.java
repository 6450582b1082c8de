package io.archiver.registry;

import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;

/**
 * Decodes (and, for producers, encodes) Avro payloads in the Confluent wire format: magic byte {@code 0}, the schema id as a big-endian int, then
 * the Avro binary encoding of one datum. A datum is decoded with its writer's schema (the id's) into a reader schema
 * (the file's, see Avro's schema resolution), so records of older versions read as the newest one. Not thread-safe:
 * one per task; the schemas come from the JVM's shared {@link SchemaRegistryClient}.
 *
 * <p>Datums are generic ({@code GenericRecord}, {@code Utf8}, {@code ByteBuffer}, …) with logical types in their
 * underlying form (days, epoch millis or micros, unscaled decimal bytes), as Parquet stores them.
 */
public final class AvroPayloads {

    private static final byte MAGIC = 0;
    private static final int HEADER = 5;

    private final SchemaSource registry;
    private final Map<Long, GenericDatumReader<Object>> readers = new HashMap<>();
    private final Map<Long, Boolean> readable = new HashMap<>();
    private BinaryDecoder decoder;
    /** The last schema looked up: a partition's records mostly share one. */
    private RegisteredSchema last;

    public AvroPayloads(SchemaSource registry) {
        this.registry = registry;
    }

    /** {@code datum} in the wire format: magic byte 0, {@code schemaId} big-endian, then its Avro binary encoding with {@code schema}. */
    public static byte[] encode(int schemaId, Schema schema, Object datum) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(MAGIC);
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

    /** The schema id of a payload in the wire format. */
    public static int schemaId(byte[] payload) throws UndecodablePayload {
        if (payload.length < HEADER || payload[0] != MAGIC) {
            throw new UndecodablePayload(payload.length == 0 ? "is empty, not in the schema registry's wire format"
                    : payload[0] != MAGIC ? "does not start with the schema registry's magic byte 0 (it starts with " + (payload[0] & 0xff) + ")"
                    : "is " + payload.length + " bytes, shorter than the wire format's 5-byte header");
        }
        return ((payload[1] & 0xff) << 24) | ((payload[2] & 0xff) << 16) | ((payload[3] & 0xff) << 8) | (payload[4] & 0xff);
    }

    /** The Avro schema the payload was written with. */
    public RegisteredSchema writerSchema(byte[] payload) throws UndecodablePayload, RegistryUnavailableException {
        int id = schemaId(payload);
        RegisteredSchema schema = last != null && last.id() == id ? last : registry.schema(id);
        last = schema;
        if (schema.avro() == null) {
            throw new UndecodablePayload("has schema id " + id + ", a " + schema.type() + " schema, not Avro");
        }
        return schema;
    }

    /**
     * The payload's datum read as {@code reader} (a record as a {@code GenericRecord}).
     *
     * @throws UndecodablePayload if the bytes do not decode with the writer's schema, or hold more than one datum
     */
    public Object decode(byte[] payload, RegisteredSchema writer, RegisteredSchema reader) throws UndecodablePayload {
        GenericDatumReader<Object> datumReader = readers.computeIfAbsent(pair(writer, reader),
                k -> new GenericDatumReader<>(writer.avro(), reader.avro()));
        decoder = DecoderFactory.get().binaryDecoder(payload, HEADER, payload.length - HEADER, decoder);
        try {
            Object datum = datumReader.read(null, decoder);
            if (!decoder.isEnd()) {
                throw new UndecodablePayload("holds more bytes than one datum of schema id " + writer.id());
            }
            return datum;
        } catch (IOException | AvroRuntimeException | IndexOutOfBoundsException | NegativeArraySizeException e) {
            throw new UndecodablePayload("does not decode with its schema id " + writer.id() + " (" + e.getClass().getSimpleName() + ")");
        }
    }

    /**
     * Checks that the payload decodes with its writer's schema without building the datum: every field is read
     * past (strings and bytes by their length), enum and union indexes are checked, and nothing may follow the
     * datum. What {@link #decode} with the same schema reads without an error.
     *
     * @throws UndecodablePayload if the bytes do not decode with the writer's schema, or hold more than one datum
     */
    public void check(byte[] payload, RegisteredSchema writer) throws UndecodablePayload {
        decoder = DecoderFactory.get().binaryDecoder(payload, HEADER, payload.length - HEADER, decoder);
        try {
            skip(writer.avro(), decoder);
            if (!decoder.isEnd()) {
                throw new UndecodablePayload("holds more bytes than one datum of schema id " + writer.id());
            }
        } catch (IOException | AvroRuntimeException | IndexOutOfBoundsException | NegativeArraySizeException e) {
            throw new UndecodablePayload("does not decode with its schema id " + writer.id() + " (" + e.getClass().getSimpleName() + ")");
        }
    }

    private static void skip(Schema schema, BinaryDecoder in) throws IOException {
        switch (schema.getType()) {
            case RECORD -> {
                for (Schema.Field f : schema.getFields()) {
                    skip(f.schema(), in);
                }
            }
            case ENUM -> {
                int index = in.readEnum();
                if (index < 0 || index >= schema.getEnumSymbols().size()) {
                    throw new IndexOutOfBoundsException("enum index " + index);
                }
            }
            case ARRAY -> {
                for (long n = in.readArrayStart(); n != 0; n = in.arrayNext()) {
                    for (long i = 0; i < n; i++) {
                        skip(schema.getElementType(), in);
                    }
                }
            }
            case MAP -> {
                for (long n = in.readMapStart(); n != 0; n = in.mapNext()) {
                    for (long i = 0; i < n; i++) {
                        in.skipString();
                        skip(schema.getValueType(), in);
                    }
                }
            }
            case UNION -> skip(schema.getTypes().get(in.readIndex()), in);
            case FIXED -> in.skipFixed(schema.getFixedSize());
            case STRING -> in.skipString();
            case BYTES -> in.skipBytes();
            case INT -> in.readInt();
            case LONG -> in.readLong();
            case FLOAT -> in.readFloat();
            case DOUBLE -> in.readDouble();
            case BOOLEAN -> in.readBoolean();
            case NULL -> in.readNull();
        }
    }

    /** True when data written with {@code writer} can be read as {@code reader} (Avro's schema resolution rules). */
    public boolean canRead(RegisteredSchema reader, RegisteredSchema writer) {
        return reader.id() == writer.id() || readable.computeIfAbsent(pair(writer, reader), k ->
                SchemaCompatibility.checkReaderWriterCompatibility(reader.avro(), writer.avro()).getType()
                        == SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE);
    }

    private static long pair(RegisteredSchema writer, RegisteredSchema reader) {
        return ((long) writer.id() << 32) | (reader.id() & 0xffffffffL);
    }
}
