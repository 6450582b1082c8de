package io.archiver.format.jsonl;

import com.fasterxml.jackson.core.JsonGenerator;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.IndexedRecord;
import org.apache.avro.util.Utf8;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * An Avro datum as plain JSON, as query engines read JSON: records and maps are objects, arrays arrays, a union's
 * value is written as that value (not Avro's {@code {"type": value}} wrapping), enums and strings are strings,
 * bytes and fixed base64 strings, decimals exact JSON numbers; dates, times and timestamps stay numbers in their
 * Avro unit (days, millis or micros); floats that are not finite are strings ("NaN", "Infinity").
 */
final class AvroJson {

    private AvroJson() {}

    static void write(JsonGenerator out, Schema schema, Object datum) throws IOException {
        if (datum == null) {
            out.writeNull();
            return;
        }
        switch (schema.getType()) {
            case UNION:
                write(out, schema.getTypes().get(GenericData.get().resolveUnion(schema, datum)), datum);
                return;
            case RECORD: {
                IndexedRecord record = (IndexedRecord) datum;
                out.writeStartObject();
                for (Schema.Field f : schema.getFields()) {
                    out.writeFieldName(f.name());
                    write(out, f.schema(), record.get(f.pos()));
                }
                out.writeEndObject();
                return;
            }
            case ARRAY:
                out.writeStartArray();
                for (Object element : (List<?>) datum) {
                    write(out, schema.getElementType(), element);
                }
                out.writeEndArray();
                return;
            case MAP:
                out.writeStartObject();
                for (Map.Entry<?, ?> e : ((Map<?, ?>) datum).entrySet()) {
                    out.writeFieldName(e.getKey().toString());
                    write(out, schema.getValueType(), e.getValue());
                }
                out.writeEndObject();
                return;
            case ENUM:
            case STRING:
                if (datum instanceof Utf8 utf8) {
                    out.writeUTF8String(utf8.getBytes(), 0, utf8.getByteLength());
                } else {
                    out.writeString(datum.toString());
                }
                return;
            case BYTES: {
                ByteBuffer buffer = ((ByteBuffer) datum).duplicate();
                byte[] bytes = new byte[buffer.remaining()];
                buffer.get(bytes);
                bytes(out, schema, bytes);
                return;
            }
            case FIXED:
                bytes(out, schema, ((GenericFixed) datum).bytes());
                return;
            case FLOAT:
            case DOUBLE: {
                double d = ((Number) datum).doubleValue();
                if (Double.isFinite(d)) {
                    if (datum instanceof Float f) {
                        out.writeNumber(f);
                    } else {
                        out.writeNumber(d);
                    }
                } else {
                    out.writeString(Double.toString(d));
                }
                return;
            }
            case INT:
                out.writeNumber((Integer) datum);
                return;
            case LONG:
                out.writeNumber((Long) datum);
                return;
            case BOOLEAN:
                out.writeBoolean((Boolean) datum);
                return;
            default:
                out.writeNull();
        }
    }

    private static void bytes(JsonGenerator out, Schema schema, byte[] bytes) throws IOException {
        if (schema.getLogicalType() instanceof LogicalTypes.Decimal decimal) {
            out.writeNumber(new BigDecimal(new BigInteger(bytes), decimal.getScale()));
        } else {
            out.writeString(Base64.getEncoder().encodeToString(bytes));
        }
    }
}
