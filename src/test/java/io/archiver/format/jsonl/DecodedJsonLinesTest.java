package io.archiver.format.jsonl;

import io.archiver.config.PayloadFormat;
import io.archiver.format.FormatReader;
import io.archiver.format.LocalPartFiles;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;
import io.archiver.registry.JsonSchemaType;
import io.archiver.registry.RegisteredSchema;
import io.archiver.registry.RegistryPayloads;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.core.fs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** JSON Lines files of decoded payloads: the exact bytes, then the schema id and the value as plain JSON. */
class DecodedJsonLinesTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir java.nio.file.Path dir;

    @Test
    void avroAndJsonSchemaValuesAreWrittenAsPlainJsonBesideTheirBytes() throws Exception {
        Schema avro = new Schema.Parser().parse("""
                {"type": "record", "name": "Payment", "fields": [
                  {"name": "customer", "type": "string"},
                  {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
                  {"name": "note", "type": ["null", "string"]},
                  {"name": "weight", "type": "double"}]}""");
        GenericRecord payment = new GenericData.Record(avro);
        payment.put("customer", "ada");
        payment.put("amount", ByteBuffer.wrap(new BigDecimal("12.50").unscaledValue().toByteArray()));
        payment.put("note", "first");
        payment.put("weight", Double.NaN);
        byte[] document = "{\"customer\":\"bob\",\"amount\":3}".getBytes(StandardCharsets.UTF_8);
        byte[] jsonValue = ByteBuffer.allocate(5 + document.length).put((byte) 0).putInt(4).put(document).array();
        List<ArchiveRecord> records = List.of(record(0, RegistryPayloads.encode(3, avro, payment)), record(1, jsonValue), record(2, null));
        JsonLinesWriterFactory factory = new JsonLinesWriterFactory(
                new PayloadFormats(PayloadFormat.BYTES, PayloadFormat.SCHEMA_REGISTRY, PayloadFormat.BYTES), JsonCompression.NONE, 0);
        Map<Integer, RegisteredSchema> registry = Map.of(3, new RegisteredSchema(3, avro),
                4, new RegisteredSchema(4, JsonSchemaType.of(JSON.readTree("{\"type\": \"object\", \"properties\": {\"customer\": {\"type\": \"string\"}}}"))));
        factory.useSchemas(registry::get);
        Path file = LocalPartFiles.write(dir.resolve("payments.jsonl"), factory, records);

        List<String> lines = Files.readAllLines(dir.resolve("payments.jsonl"));
        JsonNode first = JSON.readTree(lines.get(0));
        assertThat(first.get("value_schema_id").asInt()).isEqualTo(3);
        assertThat(lines.get(0)).as("a decimal exact, a union as its value, NaN as a string")
                .endsWith("\"value_decoded\":{\"customer\":\"ada\",\"amount\":12.50,\"note\":\"first\",\"weight\":\"NaN\"}}");
        JsonNode second = JSON.readTree(lines.get(1));
        assertThat(second.get("value_schema_id").asInt()).isEqualTo(4);
        assertThat(second.get("value_decoded").toString()).isEqualTo("{\"customer\":\"bob\",\"amount\":3}");
        assertThat(JSON.readTree(lines.get(2)).has("value_decoded")).as("a tombstone").isFalse();

        List<ArchiveRecord> read = new ArrayList<>();
        new JsonLinesReader(new PayloadFormats(PayloadFormat.BYTES, PayloadFormat.SCHEMA_REGISTRY, PayloadFormat.BYTES)).read(file, FormatReader.ALL_PARTITIONS, read::add);
        assertThat(read).as("the exact records, raw bytes included").containsExactlyElementsOf(records);
    }

    @Test
    void avroValuesOfEveryTypeAreWrittenAsPlainJsonFromTheirBytes() throws Exception {
        Schema avro = new Schema.Parser().parse("""
                {"type": "record", "name": "All", "fields": [
                  {"name": "i", "type": "int"}, {"name": "l", "type": "long"}, {"name": "b", "type": "boolean"},
                  {"name": "f", "type": "float"}, {"name": "d", "type": "double"}, {"name": "s", "type": "string"},
                  {"name": "raw", "type": "bytes"}, {"name": "fx", "type": {"type": "fixed", "name": "Two", "size": 2}},
                  {"name": "e", "type": {"type": "enum", "name": "Kind", "symbols": ["CARD", "CASH"]}},
                  {"name": "a", "type": {"type": "array", "items": "int"}},
                  {"name": "m", "type": {"type": "map", "values": "string"}},
                  {"name": "day", "type": {"type": "int", "logicalType": "date"}},
                  {"name": "inner", "type": ["null", {"type": "record", "name": "Inner", "fields": [{"name": "x", "type": "long"}]}]},
                  {"name": "none", "type": ["null", "string"]}]}""");
        GenericRecord all = new GenericData.Record(avro);
        all.put("i", -7);
        all.put("l", 1L << 40);
        all.put("b", true);
        all.put("f", Float.POSITIVE_INFINITY);
        all.put("d", 2.5);
        all.put("s", "say \"hé\"");
        all.put("raw", ByteBuffer.wrap(new byte[] {1, 2, 3}));
        all.put("fx", new GenericData.Fixed(avro.getField("fx").schema(), new byte[] {(byte) 0xff, 0}));
        all.put("e", new GenericData.EnumSymbol(avro.getField("e").schema(), "CASH"));
        all.put("a", List.of(1, 2, 3));
        all.put("m", new java.util.TreeMap<>(Map.of("k1", "v1", "k2", "v2")));
        all.put("day", 20_000);
        GenericRecord inner = new GenericData.Record(avro.getField("inner").schema().getTypes().get(1));
        inner.put("x", 9L);
        all.put("inner", inner);
        all.put("none", null);
        JsonLinesWriterFactory factory = new JsonLinesWriterFactory(
                new PayloadFormats(PayloadFormat.BYTES, PayloadFormat.AVRO, PayloadFormat.BYTES), JsonCompression.NONE, 0);
        factory.useSchemas(id -> new RegisteredSchema(6, avro));
        LocalPartFiles.write(dir.resolve("all.jsonl"), factory, List.of(record(0, RegistryPayloads.encode(6, avro, all)), record(1, RegistryPayloads.encode(6, avro, all))));
        List<String> lines = Files.readAllLines(dir.resolve("all.jsonl"));
        String expected = "\"value_schema_id\":6,\"value_decoded\":{\"i\":-7,\"l\":1099511627776,\"b\":true,\"f\":\"Infinity\",\"d\":2.5,"
                + "\"s\":\"say \\\"hé\\\"\",\"raw\":\"AQID\",\"fx\":\"/wA=\",\"e\":\"CASH\",\"a\":[1,2,3],\"m\":{\"k1\":\"v1\",\"k2\":\"v2\"},"
                + "\"day\":20000,\"inner\":{\"x\":9},\"none\":null}}";
        assertThat(lines.get(0)).endsWith(expected);
        assertThat(lines.get(1)).as("the second record, with the decoder reused").endsWith(expected);
    }

    @Test
    void protobufValuesAreWrittenAsPlainJsonWithTimestampsAsRfc3339AndWrappersAsTheirValues() throws Exception {
        com.google.protobuf.Descriptors.Descriptor payment = io.archiver.registry.ProtoSchemaParser.parse("""
                syntax = "proto3";
                import "google/protobuf/timestamp.proto";
                import "google/protobuf/wrappers.proto";
                message Payment { int64 id = 1; Kind kind = 2; map<string, double> amounts = 3; bytes raw = 4; enum Kind { CARD = 0; CASH = 1; }
                  google.protobuf.Timestamp at = 5; google.protobuf.StringValue note = 6; google.protobuf.Int64Value unset = 7; }
                """).findMessageTypeByName("Payment");
        com.google.protobuf.Descriptors.Descriptor timestamp = payment.findFieldByName("at").getMessageType();
        com.google.protobuf.Descriptors.Descriptor string = payment.findFieldByName("note").getMessageType();
        com.google.protobuf.Descriptors.Descriptor entry = payment.findFieldByName("amounts").getMessageType();
        byte[] message = com.google.protobuf.DynamicMessage.newBuilder(payment)
                .setField(payment.findFieldByName("id"), 7L)
                .setField(payment.findFieldByName("kind"), payment.findEnumTypeByName("Kind").findValueByName("CASH"))
                .addRepeatedField(payment.findFieldByName("amounts"), com.google.protobuf.DynamicMessage.newBuilder(entry)
                        .setField(entry.findFieldByName("key"), "eur").setField(entry.findFieldByName("value"), 2.5).build())
                .setField(payment.findFieldByName("raw"), com.google.protobuf.ByteString.copyFrom(new byte[] {1}))
                .setField(payment.findFieldByName("at"), com.google.protobuf.DynamicMessage.newBuilder(timestamp)
                        .setField(timestamp.findFieldByName("seconds"), 1_764_756_930L).setField(timestamp.findFieldByName("nanos"), 120_000_000).build())
                .setField(payment.findFieldByName("note"), com.google.protobuf.DynamicMessage.newBuilder(string)
                        .setField(string.findFieldByName("value"), "gift").build())
                .build().toByteArray();
        byte[] value = ByteBuffer.allocate(6 + message.length).put((byte) 0).putInt(5).put((byte) 0).put(message).array();
        JsonLinesWriterFactory factory = new JsonLinesWriterFactory(
                new PayloadFormats(PayloadFormat.BYTES, PayloadFormat.PROTOBUF, PayloadFormat.BYTES), JsonCompression.NONE, 0);
        factory.useSchemas(id -> new RegisteredSchema(5, payment.getFile()));
        LocalPartFiles.write(dir.resolve("proto.jsonl"), factory, List.of(record(0, value)));
        assertThat(Files.readAllLines(dir.resolve("proto.jsonl")).get(0))
                .endsWith("\"value_schema_id\":5,\"value_decoded\":{\"id\":7,\"kind\":\"CASH\",\"amounts\":{\"eur\":2.5},\"raw\":\"AQ==\","
                        + "\"at\":\"2025-12-03T10:15:30.120Z\",\"note\":\"gift\"}}");
    }

    private static ArchiveRecord record(long offset, byte[] value) {
        return new ArchiveRecord("payments", 0, offset, 1_772_859_843_000L, "CreateTime", null, value, new String[0], new byte[0][]);
    }
}
