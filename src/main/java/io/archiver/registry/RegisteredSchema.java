package io.archiver.registry;

import com.google.protobuf.Descriptors;
import org.apache.avro.Schema;

import java.util.List;
import java.util.Optional;

/**
 * A schema the registry holds under {@code id}: its type ({@code AVRO}, {@code JSON} or {@code PROTOBUF}) and, as
 * the type has it, the parsed Avro schema, the shape of the JSON Schema, or the Protobuf file and (for a payload,
 * which names one by its message indexes) the message (null otherwise).
 */
public record RegisteredSchema(int id, String type, Schema avro, JsonSchemaType json, Descriptors.FileDescriptor protoFile,
        Descriptors.Descriptor proto) {

    public static final String AVRO = "AVRO";
    public static final String JSON = "JSON";
    public static final String PROTOBUF = "PROTOBUF";

    /** An Avro schema. */
    public RegisteredSchema(int id, Schema avro) {
        this(id, AVRO, avro, null, null, null);
    }

    /** A JSON Schema. */
    public RegisteredSchema(int id, JsonSchemaType json) {
        this(id, JSON, null, json, null, null);
    }

    /** A Protobuf schema's file, before a payload names one of its messages. */
    public RegisteredSchema(int id, Descriptors.FileDescriptor protoFile) {
        this(id, PROTOBUF, null, null, protoFile, null);
    }

    /** This Protobuf schema with {@code message} chosen. */
    RegisteredSchema withMessage(Descriptors.Descriptor message) {
        return new RegisteredSchema(id, type, avro, json, protoFile, message);
    }

    /**
     * This Protobuf schema with the message named {@code fullName} chosen (e.g. {@code shop.v1.Order.Line}), or
     * empty when its file has no such message.
     */
    public Optional<RegisteredSchema> withMessageNamed(String fullName) {
        return find(protoFile.getMessageTypes(), fullName).map(this::withMessage);
    }

    private static Optional<Descriptors.Descriptor> find(List<Descriptors.Descriptor> messages, String fullName) {
        for (Descriptors.Descriptor message : messages) {
            if (message.getFullName().equals(fullName)) {
                return Optional.of(message);
            }
            if (fullName.startsWith(message.getFullName() + ".")) {
                return find(message.getNestedTypes(), fullName);
            }
        }
        return Optional.empty();
    }

    /** True when two schemas decode alike: the same id, and for Protobuf the same message. */
    public boolean sameAs(RegisteredSchema other) {
        return id == other.id && (proto == null ? other.proto == null : other.proto != null && proto.getFullName().equals(other.proto.getFullName()));
    }
}
