package io.archiver.format.parquet;

import io.archiver.registry.JsonSchemaType;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

import java.util.Iterator;
import java.util.Map;

/**
 * A JSON Schema's shape ({@link JsonSchemaType}) as a Parquet column tree, and JSON documents written into it:
 * objects become groups of their declared properties (every one optional; undeclared properties are left to the
 * raw bytes), arrays the standard LIST, maps the standard MAP, strings STRING, integers INT64, numbers DOUBLE,
 * booleans BOOLEAN, and what a column cannot type a JSON-annotated binary of the value's JSON text.
 */
final class JsonSchemaColumns {

    private JsonSchemaColumns() {}

    static Type column(String name, JsonSchemaType shape) {
        return type(name, shape);
    }

    private static Type type(String name, JsonSchemaType shape) {
        return switch (shape.kind()) {
            case OBJECT -> {
                Types.GroupBuilder<org.apache.parquet.schema.GroupType> group = Types.optionalGroup();
                shape.properties().forEach((property, type) -> group.addField(type(property, type)));
                yield group.named(name);
            }
            case ARRAY -> Types.optionalGroup().as(LogicalTypeAnnotation.listType())
                    .addField(Types.repeatedGroup().addField(type("element", shape.items())).named("list"))
                    .named(name);
            case MAP -> Types.optionalGroup().as(LogicalTypeAnnotation.mapType())
                    .addField(Types.repeatedGroup()
                            .addField(Types.required(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("key"))
                            .addField(type("value", shape.items()))
                            .named("key_value"))
                    .named(name);
            case STRING -> Types.optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named(name);
            case INTEGER -> Types.optional(PrimitiveTypeName.INT64).named(name);
            case NUMBER -> Types.optional(PrimitiveTypeName.DOUBLE).named(name);
            case BOOLEAN -> Types.optional(PrimitiveTypeName.BOOLEAN).named(name);
            case JSON -> Types.optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.jsonType()).named(name);
        };
    }

    /** Writes {@code value} (not null, fitting {@code shape}) as field {@code name} at {@code index} of the current group. */
    static void writeField(RecordConsumer out, String name, int index, JsonSchemaType shape, JsonNode value) {
        out.startField(name, index);
        write(out, shape, value);
        out.endField(name, index);
    }

    private static boolean present(JsonNode value) {
        return value != null && !value.isNull() && !value.isMissingNode();
    }

    private static void write(RecordConsumer out, JsonSchemaType shape, JsonNode value) {
        switch (shape.kind()) {
            case OBJECT -> {
                out.startGroup();
                int index = 0;
                for (Map.Entry<String, JsonSchemaType> p : shape.properties().entrySet()) {
                    JsonNode field = value.get(p.getKey());
                    if (present(field)) {
                        writeField(out, p.getKey(), index, p.getValue(), field);
                    }
                    index++;
                }
                out.endGroup();
            }
            case ARRAY -> {
                out.startGroup();
                if (value.size() > 0) {
                    out.startField("list", 0);
                    for (JsonNode element : value) {
                        out.startGroup();
                        if (present(element)) {
                            writeField(out, "element", 0, shape.items(), element);
                        }
                        out.endGroup();
                    }
                    out.endField("list", 0);
                }
                out.endGroup();
            }
            case MAP -> {
                out.startGroup();
                if (value.size() > 0) {
                    out.startField("key_value", 0);
                    for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
                        Map.Entry<String, JsonNode> e = it.next();
                        out.startGroup();
                        out.startField("key", 0);
                        out.addBinary(EnvelopeWriteSupport.utf8(e.getKey()));
                        out.endField("key", 0);
                        if (present(e.getValue())) {
                            writeField(out, "value", 1, shape.items(), e.getValue());
                        }
                        out.endGroup();
                    }
                    out.endField("key_value", 0);
                }
                out.endGroup();
            }
            case STRING -> out.addBinary(EnvelopeWriteSupport.utf8(value.textValue()));
            case INTEGER -> out.addLong(value.longValue());
            case NUMBER -> out.addDouble(value.doubleValue());
            case BOOLEAN -> out.addBoolean(value.booleanValue());
            case JSON -> out.addBinary(EnvelopeWriteSupport.utf8(value.toString()));
        }
    }
}
