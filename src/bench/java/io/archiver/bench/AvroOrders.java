package io.archiver.bench;

import io.archiver.registry.RegistryPayloads;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * About 1 KiB Avro values in the wire format for the benchmarks: an order of 12 strings of 48 letters, 6 longs,
 * 3 doubles, an enum and an array of 4 strings, the shape of a typical business event.
 */
final class AvroOrders {

    static final Schema SCHEMA = schema();
    private static final String[] STATUS = {"NEW", "PAID", "SHIPPED", "CANCELLED"};

    private AvroOrders() {}

    private static Schema schema() {
        StringBuilder fields = new StringBuilder();
        for (int i = 0; i < 12; i++) {
            fields.append("{\"name\": \"text").append(i).append("\", \"type\": \"string\"},");
        }
        for (int i = 0; i < 6; i++) {
            fields.append("{\"name\": \"number").append(i).append("\", \"type\": \"long\"},");
        }
        for (int i = 0; i < 3; i++) {
            fields.append("{\"name\": \"amount").append(i).append("\", \"type\": \"double\"},");
        }
        fields.append("{\"name\": \"status\", \"type\": {\"type\": \"enum\", \"name\": \"Status\", \"symbols\": [\"NEW\", \"PAID\", \"SHIPPED\", \"CANCELLED\"]}},");
        fields.append("{\"name\": \"tags\", \"type\": {\"type\": \"array\", \"items\": \"string\"}}");
        return new Schema.Parser().parse("{\"type\": \"record\", \"name\": \"BenchOrder\", \"namespace\": \"bench\", \"fields\": [" + fields + "]}");
    }

    /** The n-th order, encoded with schema id {@code id}. */
    static byte[] encode(int id, long n, Random random) {
        GenericRecord order = new GenericData.Record(SCHEMA);
        for (int i = 0; i < 12; i++) {
            order.put("text" + i, letters(random, 48));
        }
        for (int i = 0; i < 6; i++) {
            order.put("number" + i, n * 31 + random.nextInt(1_000_000));
        }
        for (int i = 0; i < 3; i++) {
            order.put("amount" + i, random.nextInt(1_000_000) / 100.0);
        }
        order.put("status", new GenericData.EnumSymbol(SCHEMA.getField("status").schema(), STATUS[(int) (n % STATUS.length)]));
        List<String> tags = new ArrayList<>(4);
        for (int i = 0; i < 4; i++) {
            tags.add(letters(random, 16));
        }
        order.put("tags", tags);
        return RegistryPayloads.encode(id, SCHEMA, order);
    }

    private static String letters(Random random, int length) {
        char[] c = new char[length];
        for (int i = 0; i < length; i++) {
            c[i] = (char) ('a' + random.nextInt(26));
        }
        return new String(c);
    }
}
