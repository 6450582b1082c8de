package io.archiver.format.jsonl;

import io.archiver.registry.ProtoWellKnownTypes;

import com.fasterxml.jackson.core.JsonGenerator;
import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;

import java.io.IOException;
import java.util.Base64;

/**
 * A Protobuf message as plain JSON, as query engines read JSON: fields by their .proto names (fields with presence
 * only when set, proto3 scalars always), repeated fields arrays, maps objects keyed by the key's text, enums their
 * value's name, bytes base64, 64-bit integers numbers (uint64 and fixed64 as unsigned), floats that are not finite
 * strings; a {@code google.protobuf.Timestamp} an RFC 3339 string, a wrapper its value (as the proto3 JSON mapping
 * has them).
 */
final class ProtoJson {

    private ProtoJson() {}

    static void write(JsonGenerator out, Message message) throws IOException {
        out.writeStartObject();
        for (FieldDescriptor f : message.getDescriptorForType().getFields()) {
            if (f.isMapField()) {
                out.writeObjectFieldStart(f.getName());
                for (int i = 0; i < message.getRepeatedFieldCount(f); i++) {
                    Message entry = (Message) message.getRepeatedField(f, i);
                    FieldDescriptor key = entry.getDescriptorForType().findFieldByNumber(1);
                    FieldDescriptor value = entry.getDescriptorForType().findFieldByNumber(2);
                    out.writeFieldName(String.valueOf(entry.getField(key)));
                    value(out, value, entry.getField(value));
                }
                out.writeEndObject();
            } else if (f.isRepeated()) {
                out.writeArrayFieldStart(f.getName());
                for (int i = 0; i < message.getRepeatedFieldCount(f); i++) {
                    value(out, f, message.getRepeatedField(f, i));
                }
                out.writeEndArray();
            } else if (!f.hasPresence() || message.hasField(f)) {
                out.writeFieldName(f.getName());
                value(out, f, message.getField(f));
            }
        }
        out.writeEndObject();
    }

    private static void value(JsonGenerator out, FieldDescriptor f, Object value) throws IOException {
        switch (f.getType()) {
            case MESSAGE, GROUP -> {
                Message message = (Message) value;
                FieldDescriptor wrapped = ProtoWellKnownTypes.wrapped(message.getDescriptorForType());
                if (ProtoWellKnownTypes.isTimestamp(message.getDescriptorForType())) {
                    out.writeString(ProtoWellKnownTypes.rfc3339(message));
                } else if (wrapped != null) {
                    value(out, wrapped, message.getField(wrapped));
                } else {
                    write(out, message);
                }
            }
            case INT32, SINT32, SFIXED32 -> out.writeNumber((Integer) value);
            case UINT32, FIXED32 -> out.writeNumber(Integer.toUnsignedLong((Integer) value));
            case INT64, SINT64, SFIXED64 -> out.writeNumber((Long) value);
            case UINT64, FIXED64 -> out.writeNumber(new java.math.BigInteger(Long.toUnsignedString((Long) value)));
            case FLOAT, DOUBLE -> {
                double d = ((Number) value).doubleValue();
                if (Double.isFinite(d)) {
                    if (value instanceof Float x) {
                        out.writeNumber(x);
                    } else {
                        out.writeNumber(d);
                    }
                } else {
                    out.writeString(Double.toString(d));
                }
            }
            case BOOL -> out.writeBoolean((Boolean) value);
            case STRING -> out.writeString((String) value);
            case BYTES -> out.writeString(Base64.getEncoder().encodeToString(((ByteString) value).toByteArray()));
            case ENUM -> out.writeString(((Descriptors.EnumValueDescriptor) value).getName());
        }
    }
}
