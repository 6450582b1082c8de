package io.archiver.format.parquet;

import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.IndexedRecord;
import org.apache.avro.util.Utf8;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * An Avro schema as a Parquet column tree, and Avro datums written into it. Records become groups; {@code [null, T]}
 * unions an optional T and other unions a group of optional {@code member0..n} (as parquet-avro writes them);
 * arrays the standard three-level LIST, maps the standard MAP with string keys; enums STRING-annotated ENUM binaries;
 * bytes and fixed binaries; logical types Parquet's own (decimal, date, time and timestamps, UTC-adjusted or
 * local, uuid as a string). Fields of type {@code null} have no column. Field names are the Avro names.
 */
final class AvroColumns {

    private AvroColumns() {}

    /** The column (tree) of a datum of {@code schema} named {@code name}, optional (a tombstone has no value). */
    static Type column(String name, Schema schema) {
        return type(name, schema, Type.Repetition.OPTIONAL, new IdentityHashMap<>());
    }

    private static Type type(String name, Schema schema, Type.Repetition repetition, Map<Schema, Boolean> open) {
        switch (schema.getType()) {
            case UNION: {
                List<Schema> branches = nonNull(schema);
                if (branches.size() == 1) {
                    return type(name, branches.get(0), Type.Repetition.OPTIONAL, open);
                }
                boolean nullable = branches.size() < schema.getTypes().size();
                Types.GroupBuilder<GroupType> group = Types.buildGroup(nullable ? Type.Repetition.OPTIONAL : repetition);
                for (int i = 0; i < branches.size(); i++) {
                    group.addField(type("member" + i, branches.get(i), Type.Repetition.OPTIONAL, open));
                }
                return group.named(name);
            }
            case RECORD: {
                if (open.put(schema, Boolean.TRUE) != null) {
                    throw new IllegalArgumentException("Avro record " + schema.getFullName() + " is recursive: Parquet columns cannot hold it");
                }
                Types.GroupBuilder<GroupType> group = Types.buildGroup(repetition);
                int fields = 0;
                for (Schema.Field f : schema.getFields()) {
                    if (f.schema().getType() != Schema.Type.NULL) {
                        group.addField(type(f.name(), f.schema(), Type.Repetition.REQUIRED, open));
                        fields++;
                    }
                }
                open.remove(schema);
                if (fields == 0) {
                    throw new IllegalArgumentException("Avro record " + schema.getFullName() + " has no fields with values: Parquet cannot hold an empty group");
                }
                return group.named(name);
            }
            case ARRAY:
                return Types.buildGroup(repetition).as(LogicalTypeAnnotation.listType())
                        .addField(Types.repeatedGroup()
                                .addField(type("element", schema.getElementType(), Type.Repetition.REQUIRED, open))
                                .named("list"))
                        .named(name);
            case MAP:
                return Types.buildGroup(repetition).as(LogicalTypeAnnotation.mapType())
                        .addField(Types.repeatedGroup()
                                .addField(Types.required(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("key"))
                                .addField(type("value", schema.getValueType(), Type.Repetition.REQUIRED, open))
                                .named("key_value"))
                        .named(name);
            case ENUM:
                return Types.primitive(PrimitiveTypeName.BINARY, repetition).as(LogicalTypeAnnotation.enumType()).named(name);
            case STRING:
                return Types.primitive(PrimitiveTypeName.BINARY, repetition).as(LogicalTypeAnnotation.stringType()).named(name);
            case BYTES:
                return Types.primitive(PrimitiveTypeName.BINARY, repetition).as(annotation(schema.getLogicalType())).named(name);
            case FIXED:
                return Types.primitive(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, repetition).length(schema.getFixedSize())
                        .as(annotation(schema.getLogicalType())).named(name);
            case INT:
                return Types.primitive(PrimitiveTypeName.INT32, repetition).as(annotation(schema.getLogicalType())).named(name);
            case LONG:
                return Types.primitive(PrimitiveTypeName.INT64, repetition).as(annotation(schema.getLogicalType())).named(name);
            case FLOAT:
                return Types.primitive(PrimitiveTypeName.FLOAT, repetition).named(name);
            case DOUBLE:
                return Types.primitive(PrimitiveTypeName.DOUBLE, repetition).named(name);
            case BOOLEAN:
                return Types.primitive(PrimitiveTypeName.BOOLEAN, repetition).named(name);
            default:
                throw new IllegalArgumentException("Avro type " + schema.getType() + " of " + name + " has no Parquet column");
        }
    }

    private static LogicalTypeAnnotation annotation(LogicalType logical) {
        if (logical == null) {
            return null;
        }
        if (logical instanceof LogicalTypes.Decimal decimal) {
            return LogicalTypeAnnotation.decimalType(decimal.getScale(), decimal.getPrecision());
        }
        return switch (logical.getName()) {
            case "date" -> LogicalTypeAnnotation.dateType();
            case "time-millis" -> LogicalTypeAnnotation.timeType(true, LogicalTypeAnnotation.TimeUnit.MILLIS);
            case "time-micros" -> LogicalTypeAnnotation.timeType(true, LogicalTypeAnnotation.TimeUnit.MICROS);
            case "timestamp-millis" -> LogicalTypeAnnotation.timestampType(true, LogicalTypeAnnotation.TimeUnit.MILLIS);
            case "timestamp-micros" -> LogicalTypeAnnotation.timestampType(true, LogicalTypeAnnotation.TimeUnit.MICROS);
            case "timestamp-nanos" -> LogicalTypeAnnotation.timestampType(true, LogicalTypeAnnotation.TimeUnit.NANOS);
            case "local-timestamp-millis" -> LogicalTypeAnnotation.timestampType(false, LogicalTypeAnnotation.TimeUnit.MILLIS);
            case "local-timestamp-micros" -> LogicalTypeAnnotation.timestampType(false, LogicalTypeAnnotation.TimeUnit.MICROS);
            case "local-timestamp-nanos" -> LogicalTypeAnnotation.timestampType(false, LogicalTypeAnnotation.TimeUnit.NANOS);
            default -> null; // uuid (a string), duration (fixed 12) and others: their underlying type
        };
    }

    private static List<Schema> nonNull(Schema union) {
        List<Schema> branches = new ArrayList<>(union.getTypes().size());
        for (Schema s : union.getTypes()) {
            if (s.getType() != Schema.Type.NULL) {
                branches.add(s);
            }
        }
        return branches;
    }

    /** Writes {@code datum} (of {@code schema}, not null) as field {@code name} at {@code index} of the current group. */
    static void writeField(RecordConsumer out, String name, int index, Schema schema, Object datum) {
        out.startField(name, index);
        write(out, schema, datum);
        out.endField(name, index);
    }

    private static void write(RecordConsumer out, Schema schema, Object datum) {
        switch (schema.getType()) {
            case UNION: {
                List<Schema> branches = nonNull(schema);
                Schema branch = schema.getTypes().get(GenericData.get().resolveUnion(schema, datum));
                if (branches.size() == 1) {
                    write(out, branch, datum);
                    return;
                }
                int member = branches.indexOf(branch);
                out.startGroup();
                writeField(out, "member" + member, member, branch, datum);
                out.endGroup();
                return;
            }
            case RECORD: {
                IndexedRecord record = (IndexedRecord) datum;
                out.startGroup();
                int column = 0;
                for (Schema.Field f : schema.getFields()) {
                    if (f.schema().getType() == Schema.Type.NULL) {
                        continue;
                    }
                    Object value = record.get(f.pos());
                    if (value != null) {
                        writeField(out, f.name(), column, f.schema(), value);
                    }
                    column++;
                }
                out.endGroup();
                return;
            }
            case ARRAY: {
                out.startGroup();
                List<?> elements = (List<?>) datum;
                if (!elements.isEmpty()) {
                    out.startField("list", 0);
                    for (Object element : elements) {
                        out.startGroup();
                        if (element != null) {
                            writeField(out, "element", 0, schema.getElementType(), element);
                        }
                        out.endGroup();
                    }
                    out.endField("list", 0);
                }
                out.endGroup();
                return;
            }
            case MAP: {
                out.startGroup();
                Map<?, ?> entries = (Map<?, ?>) datum;
                if (!entries.isEmpty()) {
                    out.startField("key_value", 0);
                    for (Map.Entry<?, ?> e : entries.entrySet()) {
                        out.startGroup();
                        out.startField("key", 0);
                        out.addBinary(EnvelopeWriteSupport.utf8(e.getKey().toString()));
                        out.endField("key", 0);
                        if (e.getValue() != null) {
                            writeField(out, "value", 1, schema.getValueType(), e.getValue());
                        }
                        out.endGroup();
                    }
                    out.endField("key_value", 0);
                }
                out.endGroup();
                return;
            }
            case ENUM:
            case STRING:
                if (datum instanceof Utf8 utf8) {
                    // the decoder's own bytes, a new array per string: no copy, no String
                    out.addBinary(Binary.fromConstantByteArray(utf8.getBytes(), 0, utf8.getByteLength()));
                } else {
                    out.addBinary(EnvelopeWriteSupport.utf8(datum.toString()));
                }
                return;
            case BYTES: {
                ByteBuffer bytes = ((ByteBuffer) datum).duplicate();
                out.addBinary(Binary.fromConstantByteBuffer(bytes));
                return;
            }
            case FIXED:
                out.addBinary(Binary.fromConstantByteArray(((GenericFixed) datum).bytes()));
                return;
            case INT:
                out.addInteger((Integer) datum);
                return;
            case LONG:
                out.addLong((Long) datum);
                return;
            case FLOAT:
                out.addFloat((Float) datum);
                return;
            case DOUBLE:
                out.addDouble((Double) datum);
                return;
            case BOOLEAN:
                out.addBoolean((Boolean) datum);
                return;
            default:
                throw new IllegalArgumentException("Avro type " + schema.getType() + " has no Parquet column");
        }
    }
}
