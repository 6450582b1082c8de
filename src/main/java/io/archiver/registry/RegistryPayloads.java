package io.archiver.registry;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.Descriptors;
import com.google.protobuf.DynamicMessage;
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
import java.util.List;
import java.util.Map;

/**
 * Payloads in the Schema Registry's wire format: magic byte {@code 0}, the schema id as a big-endian int, then the
 * payload: the Avro binary encoding of one datum, one JSON document (JSON Schema), or the message indexes (which
 * message of the {@code .proto} file, as zig-zag varints: a count, then the path; {@code 0} for the first message)
 * and a Protobuf message. Checks them, and decodes them
 * with their writer's schema (the id's) as a reader schema (the file's), so records of older versions read as the
 * newest one (Avro's schema resolution; for JSON, fields matched by name; Protobuf's own, by field number). Also encodes Avro payloads for
 * producers. Not thread-safe: one per task; the schemas come from the JVM's shared {@link SchemaRegistryClient}.
 *
 * <p>Avro datums are generic ({@code GenericRecord}, {@code Utf8}, {@code ByteBuffer}, …) with logical types in
 * their underlying form (days, epoch millis or micros, unscaled decimal bytes), as Parquet stores them; JSON
 * documents are Jackson trees.
 */
public final class RegistryPayloads {

    private static final byte MAGIC = 0;
    /** The wire format's header: the magic byte and the schema id. */
    public static final int HEADER = 5;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final SchemaSource registry;
    private final Map<Long, GenericDatumReader<Object>> readers = new HashMap<>();
    private final Map<Long, Boolean> readable = new HashMap<>();
    private final Map<String, Boolean> protoReadable = new HashMap<>();
    private final Map<String, RegisteredSchema> messages = new HashMap<>();
    private final ProtoWellKnownTypes.TimestampCheck timestamps = new ProtoWellKnownTypes.TimestampCheck();
    private BinaryDecoder decoder;
    /** The last schema looked up: a partition's records mostly share one. */
    private RegisteredSchema last;

    public RegistryPayloads(SchemaSource registry) {
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
        return schema.protoFile() != null ? message(payload, schema) : schema;
    }

    /** A Protobuf payload's schema with the message its indexes name chosen (cached per id and indexes). */
    private RegisteredSchema message(byte[] payload, RegisteredSchema file) throws UndecodablePayload {
        CodedInputStream in = CodedInputStream.newInstance(payload, HEADER, payload.length - HEADER);
        StringBuilder key = new StringBuilder().append(file.id());
        try {
            int count = in.readSInt32();
            int[] indexes = count == 0 ? new int[] {0} : new int[count];
            for (int i = 0; i < count; i++) {
                indexes[i] = in.readSInt32();
            }
            for (int index : indexes) {
                key.append('/').append(index);
            }
            RegisteredSchema cached = messages.get(key.toString());
            if (cached != null) {
                return cached;
            }
            Descriptors.Descriptor message = null;
            for (int index : indexes) {
                List<Descriptors.Descriptor> types = message == null ? file.protoFile().getMessageTypes() : message.getNestedTypes();
                if (index < 0 || index >= types.size()) {
                    throw new UndecodablePayload("names message index " + index + ", which schema id " + file.id() + " does not have");
                }
                message = types.get(index);
            }
            RegisteredSchema chosen = file.withMessage(message);
            messages.put(key.toString(), chosen);
            return chosen;
        } catch (IOException e) {
            throw new UndecodablePayload("has no valid message indexes after its schema id " + file.id());
        }
    }

    /** Where a Protobuf payload's message starts: after the header and its message indexes. */
    private static int messageStart(byte[] payload) throws IOException {
        CodedInputStream in = CodedInputStream.newInstance(payload, HEADER, payload.length - HEADER);
        int count = in.readSInt32();
        for (int i = 0; i < count; i++) {
            in.readSInt32();
        }
        return HEADER + in.getTotalBytesRead();
    }

    private static DynamicMessage proto(byte[] payload, RegisteredSchema writer, Descriptors.Descriptor as) throws UndecodablePayload {
        try {
            int start = messageStart(payload);
            return DynamicMessage.parseFrom(as, CodedInputStream.newInstance(payload, start, payload.length - start));
        } catch (IOException | RuntimeException e) {
            throw new UndecodablePayload("does not decode with its schema id " + writer.id() + " as " + writer.proto().getFullName()
                    + " (" + e.getClass().getSimpleName() + ")");
        }
    }

    /**
     * The payload read as {@code reader}: an Avro datum (a record as a {@code GenericRecord}), or a JSON tree.
     *
     * @throws UndecodablePayload if the bytes do not decode with the writer's schema, or hold more than one datum
     */
    public Object decode(byte[] payload, RegisteredSchema writer, RegisteredSchema reader) throws UndecodablePayload {
        if (writer.json() != null) {
            return json(payload, writer);
        }
        if (writer.proto() != null) {
            return proto(payload, writer, reader.proto());
        }
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
     * datum; Protobuf Timestamps must lie in their valid range (typed columns hold them as timestamps). What
     * {@link #decode} with the same schema reads without an error.
     *
     * @throws UndecodablePayload if the bytes do not decode with the writer's schema, or hold more than one datum
     */
    public void check(byte[] payload, RegisteredSchema writer) throws UndecodablePayload {
        if (writer.proto() != null) {
            String invalid = timestamps.invalidField(proto(payload, writer, writer.proto()));
            if (invalid != null) {
                throw new UndecodablePayload("holds a google.protobuf.Timestamp outside 0001-01-01 to 9999-12-31 (or nanos outside 0 to 999999999) in field '"
                        + invalid + "' (schema id " + writer.id() + ")");
            }
            return;
        }
        if (writer.json() != null) {
            String mismatch = writer.json().mismatch(json(payload, writer));
            if (mismatch != null) {
                throw new UndecodablePayload("does not fit its schema id " + writer.id() + ": " + mismatch);
            }
            return;
        }
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
        if (reader.sameAs(writer)) {
            return true;
        }
        if (!reader.type().equals(writer.type())) {
            return false;
        }
        if (reader.proto() != null) {
            return protoReadable.computeIfAbsent(writer.id() + ":" + writer.proto().getFullName() + ">" + reader.id() + ":" + reader.proto().getFullName(),
                    k -> ProtoCompatibility.reads(reader.proto(), writer.proto()));
        }
        return readable.computeIfAbsent(pair(writer, reader), k -> reader.json() != null ? reader.json().reads(writer.json())
                : SchemaCompatibility.checkReaderWriterCompatibility(reader.avro(), writer.avro()).getType()
                        == SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE);
    }

    /** The JSON document of a JSON Schema payload: exactly one JSON value after the header. */
    private static JsonNode json(byte[] payload, RegisteredSchema writer) throws UndecodablePayload {
        try (JsonParser parser = JSON.createParser(payload, HEADER, payload.length - HEADER)) {
            JsonNode value = parser.readValueAsTree();
            if (value == null) {
                throw new UndecodablePayload("is empty after the header, not a JSON document of schema id " + writer.id());
            }
            if (parser.nextToken() != null) {
                throw new UndecodablePayload("holds more than one JSON value (schema id " + writer.id() + ")");
            }
            return value;
        } catch (JsonProcessingException e) {
            throw new UndecodablePayload("is not valid JSON (schema id " + writer.id() + ", near byte offset "
                    + (e.getLocation() == null ? "unknown" : e.getLocation().getByteOffset()) + ")");
        } catch (IOException e) {
            throw new UndecodablePayload("could not be read as JSON (schema id " + writer.id() + ")");
        }
    }

    private static long pair(RegisteredSchema writer, RegisteredSchema reader) {
        return ((long) writer.id() << 32) | (reader.id() & 0xffffffffL);
    }
}
