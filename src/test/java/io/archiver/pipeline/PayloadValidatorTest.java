package io.archiver.pipeline;

import io.archiver.config.PayloadFormat;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;

import io.archiver.registry.RegisteredSchema;
import io.archiver.registry.UndecodablePayload;
import io.archiver.registry.RegistryPayloads;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

class PayloadValidatorTest {

    private static ArchiveRecord value(byte[] value) {
        return new ArchiveRecord("t", 0, 7, 0, "CreateTime", null, value, new String[] {"h"}, new byte[][] {{(byte) 0xff}});
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void bytesFormatAcceptsAnything() throws Exception {
        assertThat(new PayloadValidator(PayloadFormats.BYTES).problem(value(new byte[] {(byte) 0xc3}))).isNull();
    }

    @Test
    void jsonFormatAcceptsOneValueAndNulls() throws Exception {
        PayloadValidator v = new PayloadValidator(new PayloadFormats(PayloadFormat.BYTES, PayloadFormat.JSON, PayloadFormat.BYTES));
        assertThat(v.problem(value(utf8("{\"a\":[1,2,{\"b\":null}]}")))).isNull();
        assertThat(v.problem(value(utf8("\n  42 \n")))).isNull();
        assertThat(v.problem(value(null))).isNull();
        assertThat(v.problem(value(utf8("{\"a\":")))).startsWith("value is not valid JSON");
        assertThat(v.problem(value(utf8("1 2")))).isEqualTo("value holds more than one JSON value (format json)");
        assertThat(v.problem(value(utf8("  ")))).startsWith("value is empty");
    }

    @Test
    void stringFormatRejectsInvalidUtf8InHeaders() throws Exception {
        PayloadValidator v = new PayloadValidator(new PayloadFormats(PayloadFormat.STRING, PayloadFormat.STRING, PayloadFormat.STRING));
        assertThat(v.problem(value(utf8("caf\u00e9")))).isEqualTo("header 'h' is not valid UTF-8 (format string)");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "password=hunter2-SECRET",
        "{\"apiKey\": hunter2-SECRET}",
        "{\"apiKey\": \"hunter2-SECRET",
        "[\"hunter2-SECRET\", \u0001]",
        "hunter2-SECRET {"
    })
    void invalidJsonIsDescribedByKindAndPositionNeverByItsBytes(String payload) throws Exception {
        PayloadValidator v = new PayloadValidator(new PayloadFormats(PayloadFormat.BYTES, PayloadFormat.JSON, PayloadFormat.BYTES));
        String problem = v.problem(value(utf8(payload)));
        assertThat(problem).startsWith("value is not valid JSON (format json): ").contains("near byte offset ");
        assertThat(problem).doesNotContain("hunter2").doesNotContain("SECRET").doesNotContain("password").doesNotContain("apiKey");
    }

    @Test
    void theMessageSaysNearWhichByteTheParserStopped() throws Exception {
        PayloadValidator v = new PayloadValidator(new PayloadFormats(PayloadFormat.BYTES, PayloadFormat.JSON, PayloadFormat.BYTES));
        assertThat(v.problem(value(utf8("{\"a\": nope}")))).isEqualTo("value is not valid JSON (format json): unrecognized token, near byte offset 11");
        assertThat(v.problem(value(utf8("{\"a\":")))).isEqualTo("value is not valid JSON (format json): it ends inside a value, near byte offset 5");
    }

    @Test
    void avroPayloadsMustBeInTheWireFormatWithAKnownSchemaAndDecode() throws Exception {
        Schema schema = new Schema.Parser().parse("{\"type\": \"record\", \"name\": \"Secret\", \"fields\": [{\"name\": \"password\", \"type\": \"string\"}]}");
        GenericRecord datum = new GenericData.Record(schema);
        datum.put("password", "hunter2-SECRET");
        byte[] good = RegistryPayloads.encode(5, schema, datum);
        PayloadValidator v = new PayloadValidator(new PayloadFormats(PayloadFormat.BYTES, PayloadFormat.AVRO, PayloadFormat.BYTES), id -> {
            if (id != 5) {
                throw new UndecodablePayload("has schema id " + id + ", which the registry does not have (HTTP 404)");
            }
            return new RegisteredSchema(5, schema);
        });
        assertThat(v.problem(value(good))).isNull();
        assertThat(v.problem(value(utf8("hunter2-SECRET")))).isEqualTo(
                "value does not start with the schema registry's magic byte 0 (it starts with 104) (format avro)");
        assertThat(v.problem(value(new byte[] {0, 0, 0}))).isEqualTo(
                "value is 3 bytes, shorter than the wire format's 5-byte header (format avro)");
        byte[] unknown = good.clone();
        unknown[4] = 6;
        assertThat(v.problem(value(unknown))).isEqualTo("value has schema id 6, which the registry does not have (HTTP 404) (format avro)");
        byte[] truncated = Arrays.copyOf(good, good.length - 3);
        assertThat(v.problem(value(truncated))).startsWith("value does not decode with its schema id 5 (").doesNotContain("hunter2");
        byte[] longer = Arrays.copyOf(good, good.length + 2);
        assertThat(v.problem(value(longer))).isEqualTo("value holds more bytes than one datum of schema id 5 (format avro)");
    }

    @Test
    void jsonSchemaPayloadsMustBeOneJsonDocumentFittingTheirSchemaAndOfTheFormatsType() throws Exception {
        RegisteredSchema json = new RegisteredSchema(8, io.archiver.registry.JsonSchemaType.of(new com.fasterxml.jackson.databind.ObjectMapper().readTree(
                "{\"type\": \"object\", \"properties\": {\"amount\": {\"type\": \"number\"}, \"token\": {\"type\": \"string\"}}}")));
        Schema avroSchema = new Schema.Parser().parse("{\"type\": \"record\", \"name\": \"R\", \"fields\": [{\"name\": \"a\", \"type\": \"int\"}]}");
        io.archiver.registry.SchemaSource registry = id -> id == 8 ? json : new RegisteredSchema(9, avroSchema);
        PayloadValidator v = new PayloadValidator(new PayloadFormats(PayloadFormat.BYTES, PayloadFormat.JSON_SCHEMA, PayloadFormat.BYTES), registry);
        assertThat(v.problem(value(wire(8, "{\"amount\": 1.5, \"token\": \"hunter2-SECRET\"}")))).isNull();
        assertThat(v.problem(value(wire(8, "{\"amount\": \"hunter2-SECRET\"}")))).isEqualTo(
                "value does not fit its schema id 8: field 'amount' is string, its schema says a number (format json-schema)");
        assertThat(v.problem(value(wire(8, "{\"token\": \"hunter2-SECRET\"")))).startsWith("value is not valid JSON (schema id 8, near byte offset")
                .doesNotContain("hunter2");
        assertThat(v.problem(value(wire(8, "{} {}")))).isEqualTo("value holds more than one JSON value (schema id 8) (format json-schema)");
        GenericRecord r = new GenericData.Record(avroSchema);
        r.put("a", 1);
        byte[] avro = RegistryPayloads.encode(9, avroSchema, r);
        assertThat(v.problem(value(avro))).isEqualTo("value has schema id 9, an AVRO schema, which format json-schema does not decode");
        PayloadValidator any = new PayloadValidator(new PayloadFormats(PayloadFormat.BYTES, PayloadFormat.SCHEMA_REGISTRY, PayloadFormat.BYTES), registry);
        assertThat(any.problem(value(avro))).as("schema-registry takes Avro").isNull();
        assertThat(any.problem(value(wire(8, "{\"amount\": 2}")))).as("and JSON Schema").isNull();
    }

    private static byte[] wire(int id, String json) {
        byte[] document = json.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] payload = new byte[5 + document.length];
        payload[4] = (byte) id;
        System.arraycopy(document, 0, payload, 5, document.length);
        return payload;
    }
}
