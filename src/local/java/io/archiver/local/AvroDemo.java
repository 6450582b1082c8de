package io.archiver.local;

import io.archiver.registry.RegistryPayloads;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.util.Map;
import java.util.Properties;

/**
 * The local command's {@code --avro-demo}: a real Schema Registry, an Avro topic whose schema evolves while the
 * records are produced (the first half version 1, the second half versions 1 and 2 interleaved), archived with
 * {@code record.value.format: avro}, then a DuckDB query over the archive's typed columns printed.
 */
final class AvroDemo implements AutoCloseable {

    private static final String FIELDS = """
              {"name": "seq", "type": "long"},
              {"name": "event", "type": {"type": "enum", "name": "Event", "symbols": ["view", "click", "buy"]}},
              {"name": "page", "type": "string"},
              {"name": "price", "type": ["null", {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}], "default": null}""";
    static final Schema V1 = new Schema.Parser().parse(
            "{\"type\": \"record\", \"name\": \"Click\", \"namespace\": \"demo\", \"fields\": [" + FIELDS + "]}");
    /** Version 2 adds a field with a default (BACKWARD compatible). */
    static final Schema V2 = new Schema.Parser().parse("{\"type\": \"record\", \"name\": \"Click\", \"namespace\": \"demo\", \"fields\": ["
            + FIELDS + ", {\"name\": \"country\", \"type\": \"string\", \"default\": \"unknown\"}]}");

    private static final String[] COUNTRIES = {"de", "fr", "us", "jp"};

    private final EmbeddedSchemaRegistry registry;
    private final String topic;

    private AvroDemo(EmbeddedSchemaRegistry registry, String topic) {
        this.registry = registry;
        this.topic = topic;
    }

    static AvroDemo start(PrintWriter out, String topic) throws Exception {
        out.println("Starting a Schema Registry (Apicurio 2.6, Confluent API) ...");
        out.flush();
        return new AvroDemo(EmbeddedSchemaRegistry.start(), topic);
    }

    /** The archiver settings of the demo: values decoded with the registry. */
    void addSettings(Map<String, String> settings) {
        settings.put("record.value.format", "avro");
        settings.put("schema-registry.url", registry.url());
    }

    /** Registers version 1, produces half the records with it, registers version 2 and produces the rest interleaved. */
    void produce(PrintWriter out, Properties client, int count) throws Exception {
        int v1 = registry.register(topic + "-value", "AVRO", V1.toString());
        Properties props = new Properties();
        props.putAll(client);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            for (int i = 0; i < count / 2; i++) {
                producer.send(record(i, RegistryPayloads.encode(v1, V1, click(V1, i))));
            }
            int v2 = registry.register(topic + "-value", "AVRO", V2.toString());
            for (int i = count / 2; i < count; i++) {
                GenericRecord click = click(i % 2 == 0 ? V1 : V2, i);
                if (i % 2 == 1) {
                    click.put("country", COUNTRIES[i / 2 % COUNTRIES.length]);
                }
                producer.send(record(i, RegistryPayloads.encode(i % 2 == 0 ? v1 : v2, click.getSchema(), click)));
            }
            producer.flush();
            out.printf("Schema Registry at %s: produced %d Avro records to '%s', the first half with schema id %d, "
                    + "the second half interleaving ids %d and %d (version 2 adds 'country').%n", registry.url(), count, topic, v1, v1, v2);
        }
    }

    private ProducerRecord<byte[], byte[]> record(int i, byte[] value) {
        ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, null, ("user-" + i % 97).getBytes(StandardCharsets.UTF_8), value);
        r.headers().add("source", "kafka-s3-archiver-avro-demo".getBytes(StandardCharsets.UTF_8));
        return r;
    }

    private static GenericRecord click(Schema schema, int i) {
        GenericRecord click = new GenericData.Record(schema);
        click.put("seq", (long) i);
        click.put("event", new GenericData.EnumSymbol(schema.getField("event").schema(), new String[] {"view", "click", "buy"}[i % 3]));
        click.put("page", "/p/" + i % 13);
        click.put("price", i % 3 == 2 ? java.nio.ByteBuffer.wrap(java.math.BigInteger.valueOf(199 + i % 50 * 100L).toByteArray()) : null);
        return click;
    }

    /** Runs a DuckDB query over the archive's Parquet files (the S3 server's folder) and prints it and its result. */
    void query(PrintWriter out, Path archiveFiles) throws Exception {
        String sql = "SELECT value_schema_id, value_decoded.event, value_decoded.country, count(*) AS records, sum(value_decoded.price) AS revenue\n"
                + "FROM read_parquet('" + archiveFiles + "/**/*.parquet', union_by_name = true)\n"
                + "GROUP BY ALL ORDER BY ALL";
        out.printf("%nDuckDB over the archive's typed columns:%n%s%n", sql.replaceAll("(?m)^", "  "));
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            ResultSetMetaData meta = rs.getMetaData();
            StringBuilder header = new StringBuilder("  ");
            for (int i = 1; i <= meta.getColumnCount(); i++) {
                header.append(String.format("%-16s", meta.getColumnLabel(i)));
            }
            out.println(header);
            while (rs.next()) {
                StringBuilder row = new StringBuilder("  ");
                for (int i = 1; i <= meta.getColumnCount(); i++) {
                    row.append(String.format("%-16s", rs.getString(i)));
                }
                out.println(row);
            }
        }
        out.println("(version 1 records archived before version 2 have no country column: null; those archived with it read the default 'unknown'.)");
        out.flush();
    }

    @Override
    public void close() throws InterruptedException {
        registry.close();
    }
}
