package io.archiver.registry;

import io.archiver.table.TableArchiveFiles;
import io.archiver.archive.ArchiveFile;
import io.archiver.archive.ArchiveFileReader;
import io.archiver.archive.ArchiveFiles;
import io.archiver.archive.ArchiveRoot;
import io.archiver.config.ArchiverConfig;
import io.archiver.job.JobLauncher;
import io.archiver.local.EmbeddedSchemaRegistry;
import io.archiver.local.TlsMaterial;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.DeadLetter;
import io.archiver.record.PayloadFormats;
import io.archiver.testutils.ArchiveAssertions;
import io.archiver.testutils.ArchiveCounter;
import io.archiver.testutils.ArchiveDamage;
import io.archiver.testutils.Await;
import io.archiver.testutils.CapturedLogs;
import io.archiver.testutils.Cli;
import io.archiver.testutils.Jobs;
import io.archiver.testutils.KafkaTopicReader;
import io.archiver.testutils.KillsTaskManagers;
import io.archiver.testutils.LongRunning;
import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TestRecords;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Avro topics through a real Schema Registry (Apicurio, Confluent API): a new schema version registered while the job
 * runs, old and new interleaved record by record, TaskManagers killed mid-stream; the archive equals the read_committed
 * truth record by record, DuckDB reads the typed columns as the decoded values, no file is opened per version switch,
 * and the archive restores into Kafka byte for byte, also where the values were left to their typed columns
 * ({@code sink.parquet.decoded-payload-bytes: rebuild}). Bad payloads follow {@code errors.policy}.
 */
@KillsTaskManagers
@LongRunning(seconds = 58)
class SchemaRegistryITCase {

    static final Schema V1 = new Schema.Parser().parse("""
            {"type": "record", "name": "Payment", "namespace": "shop", "fields": [
              {"name": "id", "type": "long"},
              {"name": "customer", "type": "string"},
              {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 12, "scale": 2}},
              {"name": "tags", "type": {"type": "array", "items": "string"}}
            ]}""");
    /** Adds a field with a default: BACKWARD compatible. */
    static final Schema V2 = new Schema.Parser().parse(V1.toString().replace(
            "{\"name\":\"tags\",\"type\":{\"type\":\"array\",\"items\":\"string\"}}",
            "{\"name\":\"tags\",\"type\":{\"type\":\"array\",\"items\":\"string\"}},{\"name\":\"channel\",\"type\":\"string\",\"default\":\"web\"}"));

    private static final int PARTITIONS = 2;

    @TempDir Path local;

    @Test
    void committedRecordsOfInterleavedVersionsAreArchivedAsTypedColumnsOnceEachThroughAbortsAndTaskFailuresAndRestoreByteForByte() throws Exception {
        SharedStack stack = SharedStack.get();
        EmbeddedSchemaRegistry registry = stack.registry();
        String topic = SharedStack.uniqueName("avro-payments");
        stack.kafka().createTopic(topic, PARTITIONS);
        int v1 = registry.register(topic + "-value", "AVRO", V1.toString());

        Map<String, String> settings = stack.jobSettings(topic, topic);
        settings.put("record.value.format", "avro");
        settings.put("schema-registry.url", registry.url());
        settings.put("parallelism", "2");
        settings.put("sink.parquet.decoded-payload-bytes", "rebuild");
        ArchiverConfig config = ArchiverConfig.of(settings);
        PayloadFormats formats = PayloadFormats.of(config);
        ArchiveCounter counter = new ArchiveCounter(config.sinkPath(), formats);

        produceTransaction(topic, 0, 400, i -> RegistryPayloads.encode(v1, V1, payment(V1, i, null)), true);
        JobClient job = JobLauncher.environment(config).executeAsync("avro " + topic);
        int v2;
        try {
            Jobs.awaitWhileRunning(job, "v1 records archived", Duration.ofMinutes(2), () -> counter.count() >= 200);
            v2 = registry.register(topic + "-value", "AVRO", V2.toString());
            assertThat(v2).isGreaterThan(v1);
            SchemaRegistryClient client = SchemaRegistryClient.shared(formats.registry());
            assertThat(client.latestId(topic + "-value")).as("what a restarted writer reads its first records as").hasValue(v2);
            assertThat(client.latestId(topic + "-key")).as("no such subject").isEmpty();
            int second = v2;
            Payload interleaved = i -> (i / PARTITIONS) % 2 == 0 ? RegistryPayloads.encode(v1, V1, payment(V1, i, null)) : RegistryPayloads.encode(second, V2, payment(V2, i, "app-" + i));
            produceTransaction(topic, 400, 800, interleaved, true);
            produceTransaction(topic, 10_000, 300, interleaved, false);
            stack.killAndReplaceTaskManagers();
            produceTransaction(topic, 1_200, 800, interleaved, true);
            Jobs.awaitWhileRunning(job, "every record archived", Duration.ofMinutes(3), () -> counter.count() >= 2_000);
        } finally {
            Jobs.cancel(job);
        }

        List<ArchiveRecord> truth = KafkaTopicReader.readAll(stack.kafka().bootstrapServers(), topic);
        assertThat(truth).hasSize(2_000);
        ArchiveAssertions.assertExactlyOnce(config.sinkPath(), formats, truth);

        Map<String, ArchiveRecord> byPosition = new HashMap<>();
        truth.forEach(r -> byPosition.put(r.getPartition() + "/" + r.getOffset(), r));
        Path copy = copyArchive(config.sinkPath());
        int rows = 0;
        int rebuilt = 0;
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT \"partition\", \"offset\", value_schema_id, value_decoded.id, value_decoded.customer, "
                        + "value_decoded.amount, value_decoded.tags, value_decoded.channel, value IS NULL FROM read_parquet('" + copy + "/**/*.parquet', union_by_name = true)")) {
            while (rs.next()) {
                ArchiveRecord source = byPosition.get(rs.getInt(1) + "/" + rs.getLong(2));
                long id = Long.parseLong(new String(source.getKey(), StandardCharsets.UTF_8));
                int schemaId = RegistryPayloads.schemaId(source.getValue());
                assertThat(rs.getInt(3)).as("the schema id of %s", source).isEqualTo(schemaId);
                assertThat(rs.getLong(4)).isEqualTo(id);
                assertThat(rs.getString(5)).isEqualTo("customer-" + id % 17);
                assertThat(rs.getBigDecimal(6)).isEqualByComparingTo(amount(id));
                assertThat(rs.getString(7)).isEqualTo("[t" + id % 3 + "]");
                if (schemaId == v1) {
                    assertThat(rs.getString(8)).as("a v1 record: no channel column in a v1 file, the default in a v2 file").isIn(null, "web");
                } else {
                    assertThat(rs.getString(8)).isEqualTo("app-" + id);
                }
                rebuilt += rs.getBoolean(9) ? 1 : 0;
                rows++;
            }
        }
        assertThat(rows).as("DuckDB reads every archived record").isEqualTo(2_000);
        assertThat(rebuilt).as("values left to their typed columns: every v2 one, and the v1 ones before v2 arrived").isGreaterThanOrEqualTo(1_200);
        assertNoFileReturnsToAnOlderVersion(copy, v1, v2);

        String target = topic + "-restored";
        Cli.Result restored = Cli.run(config, "restore", "--topics", topic, "--rename", topic + "=" + target, "--create-topics");
        assertThat(restored.code()).as(restored.out()).isZero();
        List<ArchiveRecord> back = KafkaTopicReader.readCommitted(stack.kafka().bootstrapServers(), target, truth.size());
        assertThat(back).hasSize(truth.size());
        for (int i = 0; i < truth.size(); i++) {
            ArchiveRecord a = byPartitionAndOffset(truth).get(i);
            ArchiveRecord b = byPartitionAndOffset(back).get(i);
            assertThat(b.getValue()).as("value of %s restored byte for byte", a).isEqualTo(a.getValue());
            assertThat(b.getKey()).isEqualTo(a.getKey());
        }
    }

    @Test
    void badRegistryPayloadsAreDeadLetteredWithTheirPositionAndTheRestTyped() throws Exception {
        SharedStack stack = SharedStack.get();
        EmbeddedSchemaRegistry registry = stack.registry();
        String topic = SharedStack.uniqueName("avro-bad");
        stack.kafka().createTopic(topic, 1);
        int v1 = registry.register(topic + "-value", "AVRO", V1.toString());
        byte[] good = RegistryPayloads.encode(v1, V1, payment(V1, 1, null));
        byte[] unknownId = good.clone();
        unknownId[1] = 0x7f;
        byte[] truncated = Arrays.copyOf(good, good.length - 2);
        byte[] plainText = "not avro".getBytes(StandardCharsets.UTF_8);
        List<byte[]> values = List.of(good, unknownId, good, truncated, plainText, good);
        try (KafkaProducer<byte[], byte[]> producer = TestRecords.producer(stack.kafka().bootstrapServers())) {
            for (byte[] v : values) {
                producer.send(new ProducerRecord<>(topic, 0, "1".getBytes(StandardCharsets.UTF_8), v));
            }
        }
        ArchiverConfig config = archiveInBatch(topic, "avro", registry.url(), "errors.policy", "dead-letter");

        PayloadFormats formats = PayloadFormats.of(config);
        assertThat(ArchiveAssertions.archived(config.sinkPath(), formats)).extracting(ArchiveRecord::getOffset).containsExactly(0L, 2L, 5L);
        List<ArchiveRecord> deadLetters = ArchiveAssertions.archived(config.deadLetterPath(), PayloadFormats.BYTES);
        assertThat(deadLetters).extracting(ArchiveRecord::getOffset).containsExactlyInAnyOrder(1L, 3L, 4L);
        for (ArchiveRecord r : deadLetters) {
            assertThat(r.getValue()).as("dead letters keep the raw bytes").isEqualTo(values.get((int) r.getOffset()));
        }
        assertThat(deadLetters).extracting(r -> ((DeadLetter) r).getReason()).as("each with its reason").containsExactlyInAnyOrder(
                "value has schema id " + (0x7f000000 | v1) + ", but the schema registry " + registry.url() + " answered HTTP 404 (error code 40403) (format avro)",
                "value does not decode with its schema id " + v1 + " (EOFException) (format avro)",
                "value does not start with the schema registry's magic byte 0 (it starts with 110) (format avro)");

        Throwable failure = org.junit.jupiter.api.Assertions.assertThrows(Exception.class,
                () -> archiveInBatch(topic, "avro", registry.url(), "errors.policy", "fail", "sink.path", config.sinkPath() + "-fail"));
        String message = org.apache.flink.util.ExceptionUtils.stringifyException(failure);
        assertThat(message).contains("Record " + topic + "-0@1 cannot be archived: value has schema id " + (0x7f000000 | v1)
                + ", but the schema registry " + registry.url() + " answered HTTP 404 (error code 40403) (format avro)").doesNotContain("not avro");
    }

    @Test
    void aTopicMovingFromJsonSchemaToAvroIsArchivedTypedWithTheSchemaRegistryFormat() throws Exception {
        SharedStack stack = SharedStack.get();
        EmbeddedSchemaRegistry registry = stack.registry();
        String topic = SharedStack.uniqueName("mixed-payments");
        stack.kafka().createTopic(topic, PARTITIONS);
        int json = registry.register(topic + "-value", "JSON", """
                {"type": "object", "properties": {"id": {"type": "integer"}, "customer": {"type": "string"},
                 "tags": {"type": "array", "items": {"type": "string"}}}}""");
        Schema avro = new Schema.Parser().parse("""
                {"type": "record", "name": "MixedPayment", "fields": [{"name": "id", "type": "long"}, {"name": "customer", "type": "string"},
                 {"name": "tags", "type": {"type": "array", "items": "string"}}]}""");
        int avroId = registry.register(topic + "-avro-value", "AVRO", avro.toString());
        produce(topic, 0, 300, i -> wire(json, "{\"id\": " + i + ", \"customer\": \"customer-" + i % 17 + "\", \"tags\": [\"t" + i % 3 + "\"]}"));
        produce(topic, 300, 300, i -> {
            GenericRecord r = new GenericData.Record(avro);
            r.put("id", (long) i);
            r.put("customer", "customer-" + i % 17);
            r.put("tags", List.of("t" + i % 3));
            return RegistryPayloads.encode(avroId, avro, r);
        });
        ArchiverConfig config = archiveInBatch(topic, "schema-registry", registry.url());

        List<ArchiveRecord> truth = KafkaTopicReader.readAll(stack.kafka().bootstrapServers(), topic);
        ArchiveAssertions.assertExactlyOnce(config.sinkPath(), PayloadFormats.of(config), truth);
        Path copy = copyArchive(config.sinkPath());
        int rows = 0;
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT value_schema_id, value_decoded.id, value_decoded.customer, value_decoded.tags FROM read_parquet('"
                        + copy + "/**/*.parquet', union_by_name = true)")) {
            while (rs.next()) {
                long id = rs.getLong(2);
                assertThat(rs.getInt(1)).isEqualTo(id < 300 ? json : avroId);
                assertThat(rs.getString(3)).isEqualTo("customer-" + id % 17);
                assertThat(rs.getString(4)).isEqualTo("[t" + id % 3 + "]");
                rows++;
            }
        }
        assertThat(rows).isEqualTo(600);

        // a record of an Avro file altered (a valid payload of the same schema, another customer): the file holds only its
        // typed columns, from which a deep audit rebuilds the payload and finds it unlike Kafka's; nothing else does
        ArchiveFile file = TableArchiveFiles.of(config).list().committed().stream().filter(f -> {
            try {
                return new ArchiveFileReader(PayloadFormats.of(config)).readAll(f.path()).stream().anyMatch(r -> schemaId(r) == avroId);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }).findFirst().orElseThrow();
        List<ArchiveRecord> records = new ArchiveFileReader(PayloadFormats.of(config)).readAll(file.path());
        ArchiveRecord altered = records.stream().filter(r -> schemaId(r) == avroId).findFirst().orElseThrow();
        GenericRecord other = new GenericData.Record(avro);
        other.put("id", altered.getOffset());
        other.put("customer", "someone else");
        other.put("tags", List.of("t0"));
        altered.setValue(RegistryPayloads.encode(avroId, avro, other));
        ArchiveDamage.rewrite(config, file.path(), records);
        assertThat(Cli.run(config, "audit").code()).as("the fast audit checks offsets only").isZero();
        Cli.Result deep = Cli.run(config, "audit", "--deep");
        assertThat(deep.code()).as(deep.out()).isEqualTo(1);
        assertThat(deep.out()).contains("Content differs from Kafka, " + topic + "-" + altered.getPartition() + ": 1 archived records")
                .contains(altered.getOffset() + " (value)");
    }

    @Test
    void aProtobufTopicIsArchivedWithTypedColumnsThroughTheRegistry() throws Exception {
        SharedStack stack = SharedStack.get();
        EmbeddedSchemaRegistry registry = stack.registry();
        String topic = SharedStack.uniqueName("proto-payments");
        stack.kafka().createTopic(topic, PARTITIONS);
        String proto = """
                syntax = "proto3";
                package payments;
                message Payment {
                  int64 id = 1;
                  string customer = 2;
                  repeated string tags = 3;
                }
                """;
        int id = registry.register(topic + "-value", "PROTOBUF", proto);
        com.google.protobuf.Descriptors.Descriptor payment = ProtoSchemaParser.parse(proto).findMessageTypeByName("Payment");
        produce(topic, 0, 400, i -> {
            com.google.protobuf.DynamicMessage m = com.google.protobuf.DynamicMessage.newBuilder(payment)
                    .setField(payment.findFieldByName("id"), (long) i)
                    .setField(payment.findFieldByName("customer"), "customer-" + i % 17)
                    .addRepeatedField(payment.findFieldByName("tags"), "t" + i % 3).build();
            byte[] message = m.toByteArray();
            byte[] payload = new byte[6 + message.length]; // header, then the message indexes [0] as one 0 byte
            java.nio.ByteBuffer.wrap(payload).put((byte) 0).putInt(id).put((byte) 0).put(message);
            return payload;
        });
        ArchiverConfig config = archiveInBatch(topic, "protobuf", registry.url());

        ArchiveAssertions.assertExactlyOnce(config.sinkPath(), PayloadFormats.of(config), KafkaTopicReader.readAll(stack.kafka().bootstrapServers(), topic));
        Path copy = copyArchive(config.sinkPath());
        int rows = 0;
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT value_schema_id, value_decoded.id, value_decoded.customer, value_decoded.tags FROM read_parquet('"
                        + copy + "/**/*.parquet')")) {
            while (rs.next()) {
                long i = rs.getLong(2);
                assertThat(rs.getInt(1)).isEqualTo(id);
                assertThat(rs.getString(3)).isEqualTo("customer-" + i % 17);
                assertThat(rs.getString(4)).isEqualTo("[t" + i % 3 + "]");
                rows++;
            }
        }
        assertThat(rows).isEqualTo(400);
    }

    @Test
    void anAvroSchemaReferencingAChainOfOtherSubjectsIsResolvedIntoTypedColumns() throws Exception {
        SharedStack stack = SharedStack.get();
        EmbeddedSchemaRegistry registry = stack.registry();
        String topic = SharedStack.uniqueName("ref-avro");
        stack.kafka().createTopic(topic, PARTITIONS);
        // Order uses Address, which uses Country, each in its own subject
        String country = "{\"type\": \"record\", \"name\": \"Country\", \"namespace\": \"io.shop\", \"fields\": [{\"name\": \"code\", \"type\": \"string\"}]}";
        String address = "{\"type\": \"record\", \"name\": \"Address\", \"namespace\": \"io.shop\", \"fields\": [{\"name\": \"city\", \"type\": \"string\"},"
                + " {\"name\": \"country\", \"type\": \"io.shop.Country\"}]}";
        String order = "{\"type\": \"record\", \"name\": \"Order\", \"namespace\": \"io.shop\", \"fields\": [{\"name\": \"id\", \"type\": \"long\"},"
                + " {\"name\": \"ship\", \"type\": \"io.shop.Address\"}]}";
        registry.register(topic + "-country", "AVRO", country);
        registry.register(topic + "-address", "AVRO", address, Map.of("io.shop.Country", topic + "-country"));
        int id = registry.register(topic + "-value", "AVRO", order, Map.of("io.shop.Address", topic + "-address"));
        Schema.Parser parser = new Schema.Parser();
        Schema countrySchema = parser.parse(country);
        Schema addressSchema = parser.parse(address);
        Schema orderSchema = parser.parse(order);
        produce(topic, 0, 200, i -> {
            GenericRecord c = new GenericData.Record(countrySchema);
            c.put("code", "C" + i % 5);
            GenericRecord a = new GenericData.Record(addressSchema);
            a.put("city", "city-" + i % 7);
            a.put("country", c);
            GenericRecord o = new GenericData.Record(orderSchema);
            o.put("id", (long) i);
            o.put("ship", a);
            return RegistryPayloads.encode(id, orderSchema, o);
        });
        ArchiverConfig config = archiveInBatch(topic, "avro", registry.url());

        ArchiveAssertions.assertExactlyOnce(config.sinkPath(), PayloadFormats.of(config), KafkaTopicReader.readAll(stack.kafka().bootstrapServers(), topic));
        assertThat(duckDbRows(copyArchive(config.sinkPath()), topic, "value_decoded.id, value_decoded.ship.city || '/' || value_decoded.ship.country.code"))
                .hasSize(200).allSatisfy(row -> assertThat(row.get(1)).isEqualTo("city-" + Long.parseLong(row.get(0)) % 7 + "/C" + Long.parseLong(row.get(0)) % 5));
    }

    /**
     * A registry that serves HTTPS only (Apicurio with a certificate signed by a test CA): pre-flight and the job
     * reach it through {@code schema-registry.ssl.truststore.*} and archive typed; without the trust store,
     * pre-flight names the registry and the TLS failure, never the store's password. (Apicurio cannot be made to
     * ask for client certificates: mutual TLS is proven against a JDK HTTPS server in SchemaRegistryClientTest.)
     */
    @Test
    void anHttpsRegistryIsReachedThroughTheTrustStoreAndRefusedWithoutIt() throws Exception {
        SharedStack stack = SharedStack.get();
        TlsMaterial tls = TlsMaterial.create(local.resolve("tls"), "registry-store-7e1", "archiver");
        try (EmbeddedSchemaRegistry https = EmbeddedSchemaRegistry.startTls(tls)) {
            assertThat(https.url()).startsWith("https://");
            String topic = SharedStack.uniqueName("tls-payments");
            stack.kafka().createTopic(topic, PARTITIONS);
            int id = https.register(topic + "-value", "AVRO", V1.toString());
            produce(topic, 0, 100, i -> RegistryPayloads.encode(id, V1, payment(V1, i, null)));
            Map<String, String> untrusted = stack.jobSettings(topic, topic + "-untrusted");
            untrusted.put("mode", "batch");
            untrusted.put("record.value.format", "avro");
            untrusted.put("schema-registry.url", https.url());
            untrusted.put("preflight.timeout", "20 s");
            assertThatThrownBy(() -> JobLauncher.environment(ArchiverConfig.of(untrusted)))
                    .hasMessageStartingWith("Cannot reach the Schema Registry at '" + https.url() + "'")
                    .hasMessageContaining("The TLS handshake failed: check 'schema-registry.ssl.truststore.location'");

            ArchiverConfig config;
            try (CapturedLogs logs = CapturedLogs.start()) {
                config = archiveInBatch(topic, "avro", https.url(),
                        "schema-registry.ssl.truststore.location", tls.trustStore().toString(), "schema-registry.ssl.truststore.password", tls.password());
                assertThat(String.join("\n", logs.containing(""))).doesNotContain(tls.password());
            }
            // pre-flight's registry check (the rest of pre-flight needs S3 credentials the shared stack does not check)
            assertThat(SchemaRegistryClient.check(SchemaRegistrySettings.of(config), Duration.ofSeconds(20))).isEqualTo("answered, listing 1 subject");
            ArchiveAssertions.assertExactlyOnce(config.sinkPath(), PayloadFormats.of(config), KafkaTopicReader.readAll(stack.kafka().bootstrapServers(), topic));
            assertThat(duckDbRows(copyArchive(config.sinkPath()), topic, "value_decoded.id, value_decoded.customer"))
                    .hasSize(100).allSatisfy(row -> assertThat(row.get(1)).isEqualTo("customer-" + Long.parseLong(row.get(0)) % 17));
        }
    }

    /**
     * The streaming proof of the first test (Avro) for Protobuf and JSON Schema, in one job of the format that takes
     * any type: each topic's schema references another subject (a {@code .proto} import, a JSON {@code $ref}), v2
     * adds a field while the job runs, v1 and v2 interleaved record by record, an aborted transaction, every
     * TaskManager killed; then the archive equals the read_committed truth, DuckDB reads the typed columns, no file
     * returns to v1 after v2, and a restore gives back every payload byte for byte.
     */
    @Test
    void protobufAndJsonSchemaTopicsOfInterleavedVersionsAreArchivedTypedOnceEachThroughAbortsAndATaskManagerKill() throws Exception {
        SharedStack stack = SharedStack.get();
        EmbeddedSchemaRegistry registry = stack.registry();
        String protoTopic = SharedStack.uniqueName("proto-orders");
        String jsonTopic = SharedStack.uniqueName("json-orders");
        stack.kafka().createTopic(protoTopic, PARTITIONS);
        stack.kafka().createTopic(jsonTopic, PARTITIONS);
        String money = """
                syntax = "proto3";
                package shop.common;
                message Money { string currency = 1; int64 cents = 2; }
                """;
        String protoV1 = """
                syntax = "proto3";
                package shop;
                import "shop/common/money.proto";
                import "google/protobuf/timestamp.proto";
                message Order { int64 id = 1; string customer = 2; shop.common.Money total = 3; google.protobuf.Timestamp placed = 4; }
                """;
        String protoV2 = protoV1.replace("placed = 4;", "placed = 4; string channel = 5;");
        Map<String, String> moneyReference = Map.of("shop/common/money.proto", protoTopic + "-money");
        registry.register(protoTopic + "-money", "PROTOBUF", money);
        int p1 = registry.register(protoTopic + "-value", "PROTOBUF", protoV1, moneyReference);
        registry.register(jsonTopic + "-address", "JSON", """
                {"type": "object", "properties": {"city": {"type": "string"}, "zip": {"type": "integer"}}}""");
        String jsonV1 = """
                {"type": "object", "additionalProperties": false,
                 "properties": {"id": {"type": "integer"}, "customer": {"type": "string"}, "ship": {"$ref": "address.json"}}}""";
        // a closed content model: adding a property is BACKWARD compatible
        String jsonV2 = jsonV1.replace("\"ship\"", "\"channel\": {\"type\": \"string\"}, \"ship\"");
        Map<String, String> addressReference = Map.of("address.json", jsonTopic + "-address");
        int j1 = registry.register(jsonTopic + "-value", "JSON", jsonV1, addressReference);

        Map<String, String> settings = stack.jobSettings(protoTopic + "," + jsonTopic, protoTopic);
        settings.put("record.value.format", "schema-registry");
        settings.put("schema-registry.url", registry.url());
        settings.put("parallelism", "2");
        ArchiverConfig config = ArchiverConfig.of(settings);
        PayloadFormats formats = PayloadFormats.of(config);
        ArchiveCounter counter = new ArchiveCounter(config.sinkPath(), formats);

        Map<String, String> moneyText = Map.of("shop/common/money.proto", money);
        ProtoOrders v1Orders = new ProtoOrders(p1, ProtoSchemaParser.parse(protoV1, moneyText));
        produceTransaction(protoTopic, 0, 300, v1Orders::payload, true);
        produceTransaction(jsonTopic, 0, 300, i -> jsonOrder(j1, i, null), true);
        JobClient job = JobLauncher.environment(config).executeAsync("protobuf and json " + protoTopic);
        int p2;
        int j2;
        try {
            Jobs.awaitWhileRunning(job, "v1 records archived", Duration.ofMinutes(2), () -> counter.count() >= 300);
            p2 = registry.register(protoTopic + "-value", "PROTOBUF", protoV2, moneyReference);
            j2 = registry.register(jsonTopic + "-value", "JSON", jsonV2, addressReference);
            ProtoOrders v2Orders = new ProtoOrders(p2, ProtoSchemaParser.parse(protoV2, moneyText));
            int second = j2;
            Payload proto = i -> (i / PARTITIONS) % 2 == 0 ? v1Orders.payload(i) : v2Orders.payload(i);
            Payload json = i -> (i / PARTITIONS) % 2 == 0 ? jsonOrder(j1, i, null) : jsonOrder(second, i, "app-" + i);
            produceTransaction(protoTopic, 300, 500, proto, true);
            produceTransaction(jsonTopic, 300, 500, json, true);
            produceTransaction(protoTopic, 10_000, 200, proto, false);
            produceTransaction(jsonTopic, 10_000, 200, json, false);
            stack.killAndReplaceTaskManagers();
            produceTransaction(protoTopic, 800, 400, proto, true);
            produceTransaction(jsonTopic, 800, 400, json, true);
            Jobs.awaitWhileRunning(job, "every record archived", Duration.ofMinutes(3), () -> counter.count() >= 2_400);
        } finally {
            Jobs.cancel(job);
        }

        List<ArchiveRecord> truth = new ArrayList<>(KafkaTopicReader.readAll(stack.kafka().bootstrapServers(), protoTopic));
        truth.addAll(KafkaTopicReader.readAll(stack.kafka().bootstrapServers(), jsonTopic));
        assertThat(truth).hasSize(2_400);
        ArchiveAssertions.assertExactlyOnce(config.sinkPath(), formats, truth);

        Path copy = copyArchive(config.sinkPath());
        assertThat(duckDbRows(copy, protoTopic, "value_decoded.id, value_decoded.customer || ' ' || value_decoded.total.cents || ' '"
                + " || epoch_ms(value_decoded.placed) || ' ' || coalesce(value_decoded.channel, 'none')"))
                .hasSize(1_200).allSatisfy(row -> {
                    long i = Long.parseLong(row.get(0));
                    String channel = (i / PARTITIONS) % 2 == 0 || i < 300 ? "(none|)" : "app-" + i;
                    assertThat(row.get(1)).as("order %d", i).matches("customer-" + i % 17 + " " + i * 100 + " " + (1_764_756_930_000L + i) + " " + channel);
                });
        assertThat(duckDbRows(copy, jsonTopic, "value_decoded.id, value_decoded.customer || ' ' || value_decoded.ship.city || ' ' || value_decoded.ship.zip"
                + " || ' ' || coalesce(value_decoded.channel, 'none')"))
                .hasSize(1_200).allSatisfy(row -> {
                    long i = Long.parseLong(row.get(0));
                    String channel = (i / PARTITIONS) % 2 == 0 || i < 300 ? "none" : "app-" + i;
                    assertThat(row.get(1)).as("order %d", i).isEqualTo("customer-" + i % 17 + " city-" + i % 7 + " " + (1000 + i) + " " + channel);
                });
        assertNoFileReturnsToAnOlderVersion(copy.resolve("topic=" + protoTopic), p1, p2);
        assertNoFileReturnsToAnOlderVersion(copy.resolve("topic=" + jsonTopic), j1, j2);

        Cli.Result restored = Cli.run(config, "restore", "--topics", protoTopic + "," + jsonTopic,
                "--rename", protoTopic + "=" + protoTopic + "-restored," + jsonTopic + "=" + jsonTopic + "-restored", "--create-topics");
        assertThat(restored.code()).as(restored.out()).isZero();
        for (String topic : List.of(protoTopic, jsonTopic)) {
            List<ArchiveRecord> source = byPartitionAndOffset(KafkaTopicReader.readAll(stack.kafka().bootstrapServers(), topic));
            List<ArchiveRecord> back = byPartitionAndOffset(KafkaTopicReader.readAll(stack.kafka().bootstrapServers(), topic + "-restored"));
            assertThat(back).hasSize(source.size());
            for (int i = 0; i < source.size(); i++) {
                assertThat(back.get(i).getValue()).as("value of %s restored byte for byte", source.get(i)).isEqualTo(source.get(i).getValue());
            }
        }
    }

    /** Orders of one version of the Protobuf schema: id, customer, a Money from the referenced file, a Timestamp, and the channel if the version has it. */
    private record ProtoOrders(int id, com.google.protobuf.Descriptors.FileDescriptor file) {
        byte[] payload(int i) {
            com.google.protobuf.Descriptors.Descriptor order = file.findMessageTypeByName("Order");
            com.google.protobuf.Descriptors.Descriptor money = order.findFieldByName("total").getMessageType();
            com.google.protobuf.Descriptors.Descriptor timestamp = order.findFieldByName("placed").getMessageType();
            com.google.protobuf.DynamicMessage.Builder m = com.google.protobuf.DynamicMessage.newBuilder(order)
                    .setField(order.findFieldByName("id"), (long) i)
                    .setField(order.findFieldByName("customer"), "customer-" + i % 17)
                    .setField(order.findFieldByName("total"), com.google.protobuf.DynamicMessage.newBuilder(money)
                            .setField(money.findFieldByName("currency"), "EUR").setField(money.findFieldByName("cents"), (long) i * 100).build())
                    .setField(order.findFieldByName("placed"), com.google.protobuf.DynamicMessage.newBuilder(timestamp)
                            .setField(timestamp.findFieldByName("seconds"), 1_764_756_930L + i / 1000)
                            .setField(timestamp.findFieldByName("nanos"), (i % 1000) * 1_000_000).build());
            if (order.findFieldByName("channel") != null) {
                m.setField(order.findFieldByName("channel"), "app-" + i);
            }
            byte[] message = m.build().toByteArray();
            byte[] payload = new byte[6 + message.length]; // header, then the message indexes [0] as one 0 byte
            java.nio.ByteBuffer.wrap(payload).put((byte) 0).putInt(id).put((byte) 0).put(message);
            return payload;
        }
    }

    private static byte[] jsonOrder(int schemaId, int i, String channel) {
        return wire(schemaId, "{\"id\": " + i + ", \"customer\": \"customer-" + i % 17 + "\""
                + (channel == null ? "" : ", \"channel\": \"" + channel + "\"")
                + ", \"ship\": {\"city\": \"city-" + i % 7 + "\", \"zip\": " + (1000 + i) + "}}");
    }

    /**
     * Archives {@code topic} in batch mode (to its end) with values of {@code format} decoded through the registry at
     * {@code url}, and the further settings {@code more} (key, value pairs): the job's configuration.
     */
    private static ArchiverConfig archiveInBatch(String topic, String format, String url, String... more) throws Exception {
        Map<String, String> settings = SharedStack.get().jobSettings(topic, topic);
        settings.put("mode", "batch");
        settings.put("record.value.format", format);
        settings.put("schema-registry.url", url);
        for (int i = 0; i < more.length; i += 2) {
            settings.put(more[i], more[i + 1]);
        }
        ArchiverConfig config = ArchiverConfig.of(settings);
        JobLauncher.environment(config).executeAsync(format + " " + topic).getJobExecutionResult().get(2, java.util.concurrent.TimeUnit.MINUTES);
        return config;
    }

    /** Two columns of every row of {@code topic}'s files (columns unioned by name) in the archive copy {@code copy}, as DuckDB reads them. */
    private static List<List<String>> duckDbRows(Path copy, String topic, String columns) throws Exception {
        List<List<String>> rows = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT " + columns + " FROM read_parquet('" + copy + "/topic=" + topic + "/**/*.parquet', union_by_name = true)")) {
            while (rs.next()) {
                rows.add(List.of(rs.getString(1), rs.getString(2)));
            }
        }
        return rows;
    }

    private static int schemaId(ArchiveRecord r) {
        return r.getValue() == null || r.getValue().length < 5 ? -1 : java.nio.ByteBuffer.wrap(r.getValue(), 1, 4).getInt();
    }

    private static byte[] wire(int id, String json) {
        byte[] document = json.getBytes(StandardCharsets.UTF_8);
        byte[] payload = new byte[5 + document.length];
        java.nio.ByteBuffer.wrap(payload).put((byte) 0).putInt(id).put(document);
        return payload;
    }

    @Test
    void aRegistryThatHangsIsRetriedThenRestartsTheJobAndNoRecordIsSkipped() throws Exception {
        SharedStack stack = SharedStack.get();
        EmbeddedSchemaRegistry registry = stack.registry();
        String topic = SharedStack.uniqueName("avro-outage");
        stack.kafka().createTopic(topic, PARTITIONS);
        // a schema no test registered before: no TaskManager has it cached
        Schema own = new Schema.Parser().parse(V1.toString().replace("\"Payment\"", "\"OutagePayment\""));
        int id = registry.register(topic + "-value", "AVRO", own.toString());
        Map<String, String> settings = stack.jobSettings(topic, topic);
        settings.put("record.value.format", "avro");
        settings.put("schema-registry.url", registry.url());
        settings.put("schema-registry.request.timeout", "1 s");
        settings.put("schema-registry.retry.timeout", "3 s");
        settings.put("errors.policy", "skip");
        ArchiverConfig config = ArchiverConfig.of(settings);
        PayloadFormats formats = PayloadFormats.of(config);
        ArchiveCounter counter = new ArchiveCounter(config.sinkPath(), formats);

        JobClient job = JobLauncher.environment(config).executeAsync("avro " + topic);
        try (CapturedLogs logs = CapturedLogs.start()) {
            Jobs.awaitWhileRunning(job, "the job running", Duration.ofMinutes(1),
                    () -> job.getJobStatus().get() == org.apache.flink.api.common.JobStatus.RUNNING);
            registry.pause();
            try {
                produce(topic, 0, 500, i -> RegistryPayloads.encode(id, own, payment(own, i, null)));
                Await.until("the task failed for the registry", Duration.ofMinutes(1),
                        () -> !logs.containing("did not give schema id " + id + " within schema-registry.retry.timeout").isEmpty());
            } finally {
                registry.resume();
            }
            Jobs.awaitWhileRunning(job, "every record archived", Duration.ofMinutes(2), () -> counter.count() >= 500);
            assertThat(logs.containing("Skipped record")).as("no record skipped for the outage").isEmpty();
        } finally {
            Jobs.cancel(job);
        }
        ArchiveAssertions.assertExactlyOnce(config.sinkPath(), formats, KafkaTopicReader.readAll(stack.kafka().bootstrapServers(), topic));
    }

    private interface Payload {
        byte[] of(int i);
    }

    /** Records {@code first} to {@code first + count} in one transaction, committed or aborted. */
    private static void produceTransaction(String topic, int first, int count, Payload payload, boolean commit) {
        try (KafkaProducer<byte[], byte[]> producer = TestRecords.transactionalProducer(SharedStack.get().kafka().bootstrapServers(), SharedStack.uniqueName("payments"))) {
            producer.beginTransaction();
            for (int i = first; i < first + count; i++) {
                producer.send(new ProducerRecord<>(topic, i % PARTITIONS, Integer.toString(i).getBytes(StandardCharsets.UTF_8), payload.of(i)));
            }
            if (commit) {
                producer.commitTransaction();
            } else {
                producer.abortTransaction();
            }
        }
    }

    private static void produce(String topic, int first, int count, Payload payload) {
        try (KafkaProducer<byte[], byte[]> producer = TestRecords.producer(SharedStack.get().kafka().bootstrapServers())) {
            for (int i = first; i < first + count; i++) {
                producer.send(new ProducerRecord<>(topic, i % PARTITIONS, Integer.toString(i).getBytes(StandardCharsets.UTF_8), payload.of(i)));
            }
        }
    }

    static GenericRecord payment(Schema schema, long id, String channel) {
        GenericRecord r = new GenericData.Record(schema);
        r.put("id", id);
        r.put("customer", "customer-" + id % 17);
        r.put("amount", java.nio.ByteBuffer.wrap(amount(id).unscaledValue().toByteArray()));
        r.put("tags", List.of("t" + id % 3));
        if (channel != null) {
            r.put("channel", channel);
        }
        return r;
    }

    private static java.math.BigDecimal amount(long id) {
        return java.math.BigDecimal.valueOf(id * 101 + 7, 2);
    }

    /**
     * Per partition, in offset order, the files' reader schemas (in their footers) never go back from v2 to v1: one
     * switch per partition, however the versions interleave, not a file per switch.
     */
    private static void assertNoFileReturnsToAnOlderVersion(Path copy, int v1, int v2) throws Exception {
        Map<Integer, TreeMap<Long, Integer>> readers = new TreeMap<>();
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT f.\"partition\", f.first, decode(m.value) FROM "
                        + "(SELECT filename, any_value(\"partition\") AS \"partition\", min(\"offset\") AS first FROM read_parquet('" + copy
                        + "/**/*.parquet', filename = true, union_by_name = true) GROUP BY filename) f "
                        + "JOIN parquet_kv_metadata('" + copy + "/**/*.parquet') m ON m.file_name = f.filename "
                        + "WHERE decode(m.key) = 'kafka-s3-archiver.value.reader-schema-id'")) {
            while (rs.next()) {
                readers.computeIfAbsent(rs.getInt(1), p -> new TreeMap<>()).put(rs.getLong(2), Integer.parseInt(rs.getString(3)));
            }
        }
        assertThat(readers).hasSize(PARTITIONS);
        readers.forEach((partition, byOffset) -> {
            List<Integer> sequence = new ArrayList<>(byOffset.values());
            int firstV2 = sequence.indexOf(v2);
            assertThat(firstV2).as("partition %d has files read as v2: %s", partition, sequence).isNotNegative();
            assertThat(sequence.subList(firstV2, sequence.size())).as("partition %d's files after the first v2 one: %s", partition, sequence).containsOnly(v2);
            assertThat(sequence).containsOnly(v1, v2);
        });
    }

    private static List<ArchiveRecord> byPartitionAndOffset(List<ArchiveRecord> records) {
        List<ArchiveRecord> sorted = new ArrayList<>(records);
        sorted.sort(java.util.Comparator.comparingInt(ArchiveRecord::getPartition).thenComparingLong(ArchiveRecord::getOffset));
        return sorted;
    }

    /** The archive's committed Parquet files, copied into a local folder with their relative paths, for DuckDB. */
    private Path copyArchive(String root) throws Exception {
        for (ArchiveFile f : ArchiveFiles.listed(ArchiveRoot.of(root)).list().committed()) {
            Path target = local.resolve(f.path().toString().substring(root.length() + 1));
            Files.createDirectories(target.getParent());
            FileSystem fs = f.path().getFileSystem();
            try (FSDataInputStream in = fs.open(f.path()); OutputStream out = Files.newOutputStream(target)) {
                in.transferTo(out);
            }
        }
        return local;
    }
}
