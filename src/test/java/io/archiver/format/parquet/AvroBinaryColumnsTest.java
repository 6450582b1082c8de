package io.archiver.format.parquet;

import io.archiver.registry.RegistryPayloads;
import io.archiver.registry.UndecodablePayload;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Avro payloads written straight from their bytes into typed columns give the column values that decoding them into
 * Avro objects and writing those gives ({@link AvroColumns}), call for call, for every kind of field, and bytes that
 * do not hold one datum are refused.
 */
class AvroBinaryColumnsTest {

    private static final Schema NESTED = new Schema.Parser().parse("""
            {"type": "record", "name": "Nested", "namespace": "t", "fields": [
              {"name": "nothing", "type": "null"},
              {"name": "f", "type": "float"},
              {"name": "i", "type": "int"},
              {"name": "maybe", "type": ["null", "long"]},
              {"name": "either", "type": ["string", "null", "int"]},
              {"name": "elements", "type": {"type": "array", "items": ["null", "string"]}},
              {"name": "matrix", "type": {"type": "array", "items": {"type": "array", "items": "int"}}},
              {"name": "inner", "type": {"type": "map", "values": {"type": "record", "name": "Inner", "fields": [
                  {"name": "b", "type": "bytes"}, {"name": "flag", "type": "boolean"}]}}}
            ]}""");

    @Test
    void everyKindOfFieldGivesTheColumnValuesOfTheDecodedDatum() throws Exception {
        GenericRecord byCard = TypedAvroColumnsTest.order(TypedAvroColumnsTest.ORDER_V1, 1, "ada", "12.50", "PAID",
                new GenericData.Record(TypedAvroColumnsTest.ORDER_V1.getField("payment").schema().getTypes().get(1)));
        GenericRecord cash = new GenericData.Record(TypedAvroColumnsTest.ORDER_V1.getField("payment").schema().getTypes().get(2));
        cash.put("currency", "EUR");
        GenericRecord paidInCash = TypedAvroColumnsTest.order(TypedAvroColumnsTest.ORDER_V1, 2, "bø", "-0.01", "SHIPPED", null);
        paidInCash.put("payment", cash);
        assertSameColumns(TypedAvroColumnsTest.ORDER_V1, byCard, false);
        assertSameColumns(TypedAvroColumnsTest.ORDER_V1, paidInCash, false);
        assertSameColumns(TypedAvroColumnsTest.ORDER_V1, TypedAvroColumnsTest.order(TypedAvroColumnsTest.ORDER_V1, 3, "", "0", "NEW", null), false);

        assertSameColumns(NESTED, nested(-1, "text", Arrays.asList("a", null, "c"), List.of(List.of(1, 2), List.of(), List.of(-3))), false);
        assertSameColumns(NESTED, nested(Integer.MIN_VALUE, null, List.of(), List.of()), false);
        assertSameColumns(NESTED, nested(Integer.MAX_VALUE, 7, Arrays.asList(null, null), List.of(List.of(0))), false);
    }

    @Test
    void arraysAndMapsWrittenInSeveralSizedBlocksGiveTheSameColumns() throws Exception {
        List<String> many = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            many.add("element " + i);
        }
        assertSameColumns(NESTED, nested(5, "x", many, List.of(List.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20))), true);
    }

    @Test
    void schemasThatAreNotRecordsAndANullValueOfAUnion() throws Exception {
        assertSameColumns(Schema.create(Schema.Type.STRING), new org.apache.avro.util.Utf8("just a string"), false);
        assertSameColumns(Schema.create(Schema.Type.LONG), Long.MIN_VALUE, false);
        Schema optional = new Schema.Parser().parse("[\"null\", \"double\"]");
        assertSameColumns(optional, 2.5, false);
        assertThat(binaryCalls(optional, encode(optional, null, false))).as("a null value writes no field").isEmpty();
    }

    @Test
    void bytesThatDoNotHoldOneDatumAreRefused() throws Exception {
        GenericRecord order = TypedAvroColumnsTest.order(TypedAvroColumnsTest.ORDER_V1, 1, "ada", "1.00", "NEW", null);
        byte[] payload = encode(TypedAvroColumnsTest.ORDER_V1, order, false);
        AvroBinaryColumns columns = AvroBinaryColumns.of(TypedAvroColumnsTest.ORDER_V1);
        assertThatThrownBy(() -> columns.writeField(new Recording(), "v", 0, Arrays.copyOf(payload, payload.length - 3), RegistryPayloads.HEADER))
                .isInstanceOf(UndecodablePayload.class);
        assertThatThrownBy(() -> columns.writeField(new Recording(), "v", 0, Arrays.copyOf(payload, payload.length + 1), RegistryPayloads.HEADER))
                .isInstanceOf(UndecodablePayload.class).hasMessageContaining("more bytes than one datum");
        AvroBinaryColumns enumOnly = AvroBinaryColumns.of(TypedAvroColumnsTest.ORDER_V1.getField("status").schema());
        byte[] status = {0, 0, 0, 0, 7, 8};
        assertThatThrownBy(() -> enumOnly.writeField(new Recording(), "v", 0, status, RegistryPayloads.HEADER))
                .isInstanceOf(UndecodablePayload.class).hasMessageContaining("enum index 4");
    }

    private static GenericRecord nested(int i, Object either, List<String> elements, List<List<Integer>> matrix) {
        GenericRecord r = new GenericData.Record(NESTED);
        r.put("f", Float.intBitsToFloat(0x7fc00001));
        r.put("i", i);
        r.put("maybe", i % 2 == 0 ? null : (long) i * 1_000_000_007L);
        r.put("either", either);
        r.put("elements", elements);
        r.put("matrix", matrix);
        GenericRecord inner = new GenericData.Record(NESTED.getField("inner").schema().getValueType());
        inner.put("b", java.nio.ByteBuffer.wrap(new byte[] {0, (byte) 0xff, 3}));
        inner.put("flag", i > 0);
        r.put("inner", Map.of("k", inner, "ünïcode", inner));
        return r;
    }

    /** Decoding into Avro objects then writing them, and writing from the bytes, make the same calls. */
    private static void assertSameColumns(Schema schema, Object datum, boolean blocks) throws Exception {
        byte[] payload = encode(schema, datum, blocks);
        Object decoded = new InPayloadOrder(schema).read(null,
                DecoderFactory.get().binaryDecoder(payload, RegistryPayloads.HEADER, payload.length - RegistryPayloads.HEADER, null));
        Recording viaObjects = new Recording();
        AvroColumns.writeField(viaObjects, "value_decoded", 9, schema, decoded);
        assertThat(binaryCalls(schema, payload)).isEqualTo(viaObjects.calls).isNotEmpty();
    }

    /** Avro's reader with maps in the payload's order (a HashMap's order is its own), as the columns have them. */
    private static final class InPayloadOrder extends GenericDatumReader<Object> {
        InPayloadOrder(Schema schema) {
            super(schema, schema, slowReader());
        }

        /** Avro's fast reader makes its own maps. */
        private static GenericData slowReader() {
            GenericData data = new GenericData();
            data.setFastReaderEnabled(false);
            return data;
        }

        @Override
        protected Object newMap(Object old, int size) {
            return new java.util.LinkedHashMap<>();
        }
    }

    private static List<String> binaryCalls(Schema schema, byte[] payload) throws UndecodablePayload {
        Recording fromBytes = new Recording();
        AvroBinaryColumns.of(schema).writeField(fromBytes, "value_decoded", 9, payload, RegistryPayloads.HEADER);
        return fromBytes.calls;
    }

    /** The wire format; with {@code blocks}, arrays and maps in blocks of at most 64 bytes with their sizes (negative counts). */
    private static byte[] encode(Schema schema, Object datum, boolean blocks) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(new byte[] {0, 0, 0, 0, 7});
        BinaryEncoder encoder = blocks
                ? new EncoderFactory().configureBlockSize(64).blockingBinaryEncoder(out, null)
                : EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<>(schema).write(datum, encoder);
        encoder.flush();
        byte[] payload = out.toByteArray();
        if (blocks) {
            assertThat(payload.length).as("written in blocks, longer than the plain encoding")
                    .isGreaterThan(encode(schema, datum, false).length);
        }
        return payload;
    }

    /** A record consumer that lists what it is told, binaries in hex (pure logic: no Parquet file). */
    private static final class Recording extends RecordConsumer {
        final List<String> calls = new ArrayList<>();

        @Override public void startMessage() { calls.add("startMessage"); }
        @Override public void endMessage() { calls.add("endMessage"); }
        @Override public void startField(String field, int index) { calls.add("startField " + field + " " + index); }
        @Override public void endField(String field, int index) { calls.add("endField " + field + " " + index); }
        @Override public void startGroup() { calls.add("startGroup"); }
        @Override public void endGroup() { calls.add("endGroup"); }
        @Override public void addInteger(int value) { calls.add("int " + value); }
        @Override public void addLong(long value) { calls.add("long " + value); }
        @Override public void addBoolean(boolean value) { calls.add("boolean " + value); }
        @Override public void addBinary(Binary value) { calls.add("binary " + HexFormat.of().formatHex(value.getBytes())); }
        @Override public void addFloat(float value) { calls.add("float " + Float.floatToRawIntBits(value)); }
        @Override public void addDouble(double value) { calls.add("double " + Double.doubleToRawLongBits(value)); }
    }
}
