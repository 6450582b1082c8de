package io.archiver.format.jsonl;

import com.fasterxml.jackson.core.JsonGenerator;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.io.Decoder;
import org.apache.avro.util.Utf8;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.Base64;

/**
 * An Avro datum as plain JSON, as query engines read JSON, written straight from its binary encoding as the writer
 * schema walks it (no record, list, map or string objects in between): records and maps are objects, arrays
 * arrays, a union's value is written as that value (not Avro's {@code {"type": value}} wrapping), enums and strings
 * are strings, bytes and fixed base64 strings, decimals exact JSON numbers; dates, times and timestamps stay
 * numbers in their Avro unit (days, millis or micros); floats that are not finite are strings ("NaN", "Infinity").
 * Not thread-safe: one per writer.
 */
final class AvroJson {

    private Utf8 text = new Utf8();
    private ByteBuffer bytes;

    /** Writes the datum {@code in} holds, encoded with {@code schema}. */
    void write(JsonGenerator out, Schema schema, Decoder in) throws IOException {
        switch (schema.getType()) {
            case NULL -> {
                in.readNull();
                out.writeNull();
            }
            case UNION -> write(out, schema.getTypes().get(in.readIndex()), in);
            case RECORD -> {
                out.writeStartObject();
                for (Schema.Field f : schema.getFields()) {
                    out.writeFieldName(f.name());
                    write(out, f.schema(), in);
                }
                out.writeEndObject();
            }
            case ARRAY -> {
                out.writeStartArray();
                for (long n = in.readArrayStart(); n != 0; n = in.arrayNext()) {
                    for (long i = 0; i < n; i++) {
                        write(out, schema.getElementType(), in);
                    }
                }
                out.writeEndArray();
            }
            case MAP -> {
                out.writeStartObject();
                for (long n = in.readMapStart(); n != 0; n = in.mapNext()) {
                    for (long i = 0; i < n; i++) {
                        text = in.readString(text);
                        out.writeFieldName(text.toString());
                        write(out, schema.getValueType(), in);
                    }
                }
                out.writeEndObject();
            }
            case ENUM -> out.writeString(schema.getEnumSymbols().get(in.readEnum()));
            case STRING -> {
                text = in.readString(text);
                out.writeUTF8String(text.getBytes(), 0, text.getByteLength());
            }
            case BYTES -> {
                bytes = in.readBytes(bytes);
                byte[] b = new byte[bytes.remaining()];
                bytes.duplicate().get(b);
                bytes(out, schema, b);
            }
            case FIXED -> {
                byte[] b = new byte[schema.getFixedSize()];
                in.readFixed(b);
                bytes(out, schema, b);
            }
            case FLOAT -> {
                float f = in.readFloat();
                if (Float.isFinite(f)) {
                    out.writeNumber(f);
                } else {
                    out.writeString(Double.toString(f));
                }
            }
            case DOUBLE -> {
                double d = in.readDouble();
                if (Double.isFinite(d)) {
                    out.writeNumber(d);
                } else {
                    out.writeString(Double.toString(d));
                }
            }
            case INT -> out.writeNumber(in.readInt());
            case LONG -> out.writeNumber(in.readLong());
            case BOOLEAN -> out.writeBoolean(in.readBoolean());
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
