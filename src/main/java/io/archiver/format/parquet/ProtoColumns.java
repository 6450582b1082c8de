package io.archiver.format.parquet;

import io.archiver.registry.ProtoWellKnownTypes;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * A Protobuf message as a Parquet column tree, and messages written into it: a message is a group of its fields
 * (optional: absent messages and unset fields with presence are null, proto3 scalars without presence hold their
 * value, defaults included), repeated fields the standard LIST, map fields the standard MAP, {@code oneof} members
 * optional fields of their own; int32/sint32/sfixed32 INT32, uint32/fixed32 INT64, int64/sint64/sfixed64 INT64,
 * uint64/fixed64 INT64 (UINT_64), float, double, bool, string STRING, bytes BINARY, enums ENUM (the value's name).
 * Field names are the .proto names. Well-known types hold what they stand for ({@link ProtoWellKnownTypes}): a
 * {@code google.protobuf.Timestamp} is a TIMESTAMP (microseconds, UTC), a wrapper its value's column.
 */
final class ProtoColumns {

    private ProtoColumns() {}

    static Type column(String name, Descriptors.Descriptor message) {
        return group(name, message, Type.Repetition.OPTIONAL, new IdentityHashMap<>());
    }

    private static Type group(String name, Descriptors.Descriptor message, Type.Repetition repetition, Map<Descriptors.Descriptor, Boolean> open) {
        if (open.put(message, Boolean.TRUE) != null) {
            throw new IllegalArgumentException("Protobuf message " + message.getFullName() + " is recursive: Parquet columns cannot hold it");
        }
        if (message.getFields().isEmpty()) {
            throw new IllegalArgumentException("Protobuf message " + message.getFullName() + " has no fields: Parquet cannot hold an empty group");
        }
        Types.GroupBuilder<GroupType> group = Types.buildGroup(repetition);
        for (FieldDescriptor f : message.getFields()) {
            group.addField(field(f, open));
        }
        open.remove(message);
        return group.named(name);
    }

    private static Type field(FieldDescriptor f, Map<Descriptors.Descriptor, Boolean> open) {
        if (f.isMapField()) {
            Descriptors.Descriptor entry = f.getMessageType();
            return Types.optionalGroup().as(LogicalTypeAnnotation.mapType())
                    .addField(Types.repeatedGroup()
                            .addField(single("key", entry.findFieldByNumber(1), Type.Repetition.REQUIRED, open))
                            .addField(single("value", entry.findFieldByNumber(2), Type.Repetition.OPTIONAL, open))
                            .named("key_value"))
                    .named(f.getName());
        }
        if (f.isRepeated()) {
            return Types.optionalGroup().as(LogicalTypeAnnotation.listType())
                    .addField(Types.repeatedGroup().addField(single("element", f, Type.Repetition.REQUIRED, open)).named("list"))
                    .named(f.getName());
        }
        return single(f.getName(), f, Type.Repetition.OPTIONAL, open);
    }

    private static Type single(String name, FieldDescriptor f, Type.Repetition repetition, Map<Descriptors.Descriptor, Boolean> open) {
        return switch (f.getType()) {
            case MESSAGE, GROUP -> messageColumn(name, f.getMessageType(), repetition, open);
            case INT32, SINT32, SFIXED32 -> Types.primitive(PrimitiveTypeName.INT32, repetition).named(name);
            case UINT32, FIXED32, INT64, SINT64, SFIXED64 -> Types.primitive(PrimitiveTypeName.INT64, repetition).named(name);
            case UINT64, FIXED64 -> Types.primitive(PrimitiveTypeName.INT64, repetition).as(LogicalTypeAnnotation.intType(64, false)).named(name);
            case FLOAT -> Types.primitive(PrimitiveTypeName.FLOAT, repetition).named(name);
            case DOUBLE -> Types.primitive(PrimitiveTypeName.DOUBLE, repetition).named(name);
            case BOOL -> Types.primitive(PrimitiveTypeName.BOOLEAN, repetition).named(name);
            case STRING -> Types.primitive(PrimitiveTypeName.BINARY, repetition).as(LogicalTypeAnnotation.stringType()).named(name);
            case BYTES -> Types.primitive(PrimitiveTypeName.BINARY, repetition).named(name);
            case ENUM -> Types.primitive(PrimitiveTypeName.BINARY, repetition).as(LogicalTypeAnnotation.enumType()).named(name);
        };
    }

    /** A message field's column: a well-known type's as the value it stands for, any other message a group. */
    private static Type messageColumn(String name, Descriptors.Descriptor message, Type.Repetition repetition, Map<Descriptors.Descriptor, Boolean> open) {
        FieldDescriptor wrapped = ProtoWellKnownTypes.wrapped(message);
        if (ProtoWellKnownTypes.isTimestamp(message)) {
            return Types.primitive(PrimitiveTypeName.INT64, repetition)
                    .as(LogicalTypeAnnotation.timestampType(true, LogicalTypeAnnotation.TimeUnit.MICROS)).named(name);
        }
        return wrapped != null ? single(name, wrapped, repetition, open) : group(name, message, repetition, open);
    }

    /** Writes {@code message} as field {@code name} at {@code index} of the current group. */
    static void writeField(RecordConsumer out, String name, int index, Message message) {
        out.startField(name, index);
        writeMessage(out, message);
        out.endField(name, index);
    }

    /** A message's value: a well-known type's as its column holds it, any other as a group. */
    private static void message(RecordConsumer out, Message message) {
        Descriptors.Descriptor type = message.getDescriptorForType();
        FieldDescriptor wrapped = ProtoWellKnownTypes.wrapped(type);
        if (ProtoWellKnownTypes.isTimestamp(type)) {
            out.addLong(ProtoWellKnownTypes.epochMicros(message));
        } else if (wrapped != null) {
            value(out, wrapped, message.getField(wrapped));
        } else {
            writeMessage(out, message);
        }
    }

    private static void writeMessage(RecordConsumer out, Message message) {
        out.startGroup();
        List<FieldDescriptor> fields = message.getDescriptorForType().getFields();
        for (int i = 0; i < fields.size(); i++) {
            FieldDescriptor f = fields.get(i);
            if (f.isRepeated()) {
                int n = message.getRepeatedFieldCount(f);
                if (n == 0) {
                    continue;
                }
                out.startField(f.getName(), i);
                out.startGroup();
                out.startField(f.isMapField() ? "key_value" : "list", 0);
                for (int e = 0; e < n; e++) {
                    Object element = message.getRepeatedField(f, e);
                    out.startGroup();
                    if (f.isMapField()) {
                        Message entry = (Message) element;
                        FieldDescriptor key = entry.getDescriptorForType().findFieldByNumber(1);
                        FieldDescriptor value = entry.getDescriptorForType().findFieldByNumber(2);
                        out.startField("key", 0);
                        value(out, key, entry.getField(key));
                        out.endField("key", 0);
                        if (value.getType() != FieldDescriptor.Type.MESSAGE || entry.hasField(value)) {
                            out.startField("value", 1);
                            value(out, value, entry.getField(value));
                            out.endField("value", 1);
                        }
                    } else {
                        out.startField("element", 0);
                        value(out, f, element);
                        out.endField("element", 0);
                    }
                    out.endGroup();
                }
                out.endField(f.isMapField() ? "key_value" : "list", 0);
                out.endGroup();
                out.endField(f.getName(), i);
            } else if (f.hasPresence() ? message.hasField(f) : true) {
                out.startField(f.getName(), i);
                value(out, f, message.getField(f));
                out.endField(f.getName(), i);
            }
        }
        out.endGroup();
    }

    private static void value(RecordConsumer out, FieldDescriptor f, Object value) {
        switch (f.getType()) {
            case MESSAGE, GROUP -> message(out, (Message) value);
            case INT32, SINT32, SFIXED32 -> out.addInteger((Integer) value);
            case UINT32, FIXED32 -> out.addLong(Integer.toUnsignedLong((Integer) value));
            case INT64, SINT64, SFIXED64, UINT64, FIXED64 -> out.addLong((Long) value);
            case FLOAT -> out.addFloat((Float) value);
            case DOUBLE -> out.addDouble((Double) value);
            case BOOL -> out.addBoolean((Boolean) value);
            case STRING -> out.addBinary(EnvelopeWriteSupport.utf8((String) value));
            case BYTES -> out.addBinary(Binary.fromConstantByteArray(((ByteString) value).toByteArray()));
            case ENUM -> out.addBinary(EnvelopeWriteSupport.utf8(((Descriptors.EnumValueDescriptor) value).getName()));
        }
    }
}
