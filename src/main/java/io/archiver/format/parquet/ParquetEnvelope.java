package io.archiver.format.parquet;

import io.archiver.config.PayloadFormat;
import io.archiver.record.PayloadFormats;
import io.archiver.registry.RegisteredSchema;

import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

import static io.archiver.record.EnvelopeFields.*;

/**
 * The Parquet schema of the envelope. Key, value and header values are BINARY, annotated STRING or JSON
 * when so configured; headers are a standard three-level LIST of (key, value) structs:
 *
 * <pre>
 * message kafka_record {
 *   required binary topic (STRING);
 *   required int32 partition;
 *   required int64 offset;
 *   required int64 timestamp (TIMESTAMP(MILLIS,true));
 *   required binary timestamp_type (STRING);
 *   optional binary key;
 *   optional binary value;
 *   required group headers (LIST) {
 *     repeated group list {
 *       required group element {
 *         required binary key (STRING);
 *         optional binary value;
 *       }
 *     }
 *   }
 * }
 * </pre>
 */
public final class ParquetEnvelope {

    static final int TOPIC_INDEX = 0;
    static final int PARTITION_INDEX = 1;
    static final int OFFSET_INDEX = 2;
    static final int TIMESTAMP_INDEX = 3;
    static final int TIMESTAMP_TYPE_INDEX = 4;
    static final int KEY_INDEX = 5;
    static final int VALUE_INDEX = 6;
    static final int HEADERS_INDEX = 7;

    private ParquetEnvelope() {}

    public static MessageType schema(PayloadFormats formats) {
        return schema(formats, FileSchemas.NONE);
    }

    /**
     * The envelope of a file, with, for a key or value of format {@code avro}, its schema id and (when the file has
     * a reader schema for it) its decoded columns after the headers:
     *
     * <pre>
     *   optional int32 value_schema_id;
     *   optional group value_decoded { ... the reader schema's columns ({@link AvroColumns}) ... }
     * </pre>
     */
    static MessageType schema(PayloadFormats formats, FileSchemas file) {
        Types.MessageTypeBuilder message = Types.buildMessage();
        message
                .required(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named(TOPIC)
                .required(PrimitiveTypeName.INT32).named(PARTITION)
                .required(PrimitiveTypeName.INT64).named(OFFSET)
                .required(PrimitiveTypeName.INT64)
                .as(LogicalTypeAnnotation.timestampType(true, LogicalTypeAnnotation.TimeUnit.MILLIS))
                .named(TIMESTAMP)
                .required(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named(TIMESTAMP_TYPE)
                .addField(payload(KEY, formats.key()))
                .addField(payload(VALUE, formats.value()))
                .requiredGroup().as(LogicalTypeAnnotation.listType())
                .repeatedGroup()
                .requiredGroup()
                .required(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named(HEADER_KEY)
                .addField(payload(HEADER_VALUE, formats.header()))
                .named("element")
                .named("list")
                .named(HEADERS);
        decoded(message, formats.key(), file.key(), KEY_SCHEMA_ID, KEY_DECODED);
        decoded(message, formats.value(), file.value(), VALUE_SCHEMA_ID, VALUE_DECODED);
        return message.named("kafka_record");
    }

    private static void decoded(Types.MessageTypeBuilder message, PayloadFormat format, RegisteredSchema reader, String idColumn, String decodedColumn) {
        if (format.decodedWithRegistry()) {
            message.optional(PrimitiveTypeName.INT32).named(idColumn);
            if (reader != null) {
                message.addField(DecodedColumns.column(decodedColumn, reader));
            }
        }
    }

    private static Type payload(String name, PayloadFormat format) {
        switch (format) {
            case STRING:
                return Types.optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named(name);
            case JSON:
                return Types.optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.jsonType()).named(name);
            default:
                return Types.optional(PrimitiveTypeName.BINARY).named(name);
        }
    }
}
