package io.archiver.format.parquet;

import io.archiver.config.PayloadFormat;
import io.archiver.format.LocalPartFiles;
import io.archiver.format.SelectiveBulkWriter;
import io.archiver.pipeline.PayloadValidator;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;
import io.archiver.registry.RegisteredSchema;
import io.archiver.registry.SchemaSource;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.Descriptors;
import com.google.protobuf.DynamicMessage;
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Protobuf payloads become typed Parquet columns beside their exact bytes, as DuckDB reads them; the message indexes pick the message. */
class TypedProtobufColumnsTest {

    static final String ORDERS_V1 = """
            syntax = "proto3";
            package shop.v1;
            import "google/protobuf/timestamp.proto";
            option java_package = "com.example.shop"; // options are read past

            /* an order, as Confluent's serializer registers it */
            message Order {
              int64 id = 1;
              string customer = 2;
              Status status = 3;
              repeated Line lines = 4;
              map<string, int32> attributes = 5;
              oneof payment {
                string card = 6;
                string iban = 7;
              }
              google.protobuf.Timestamp placed = 8;
              bytes checksum = 9 [deprecated = true];
              uint64 big = 10;
              message Line {
                string sku = 1;
                int32 quantity = 2;
              }
              enum Status {
                NEW = 0;
                PAID = 1;
              }
              reserved 20 to 25;
            }
            message Refund {
              int64 order = 1;
              double amount = 2;
            }
            """;
    static final String ORDERS_V2 = ORDERS_V1.replace("uint64 big = 10;", "uint64 big = 10;\n  string channel = 11;");

    @TempDir java.nio.file.Path dir;

    @Test
    void protobufMessagesBecomeTypedColumnsThatDuckDbReadsAndTheIndexesPickTheMessage() throws Exception {
        Map<Integer, RegisteredSchema> registry = registry();
        Descriptors.Descriptor order = registry.get(3).protoFile().findMessageTypeByName("Order");
        Descriptors.Descriptor line = order.findNestedTypeByName("Line");
        DynamicMessage message = DynamicMessage.newBuilder(order)
                .setField(order.findFieldByName("id"), 42L)
                .setField(order.findFieldByName("customer"), "ada")
                .setField(order.findFieldByName("status"), order.findEnumTypeByName("Status").findValueByName("PAID"))
                .addRepeatedField(order.findFieldByName("lines"), DynamicMessage.newBuilder(line)
                        .setField(line.findFieldByName("sku"), "a-1").setField(line.findFieldByName("quantity"), 2).build())
                .setField(order.findFieldByName("iban"), "DE00")
                .setField(order.findFieldByName("checksum"), ByteString.copyFrom(new byte[] {1, 2}))
                .setField(order.findFieldByName("big"), -1L)
                .build();
        DynamicMessage withMap = message.toBuilder().addRepeatedField(order.findFieldByName("attributes"),
                DynamicMessage.newBuilder(order.findFieldByName("attributes").getMessageType())
                        .setField(order.findFieldByName("attributes").getMessageType().findFieldByName("key"), "size")
                        .setField(order.findFieldByName("attributes").getMessageType().findFieldByName("value"), 7).build()).build();
        List<ArchiveRecord> records = List.of(record(0, wire(3, new int[0], withMap)), record(1, null),
                record(2, wire(3, new int[0], DynamicMessage.newBuilder(order).setField(order.findFieldByName("id"), 43L).build())));

        PayloadValidator validator = new PayloadValidator(formats(), source(registry));
        assertThat(validator.problem(records.get(0))).isNull();
        Descriptors.Descriptor refund = registry.get(3).protoFile().findMessageTypeByName("Refund");
        ArchiveRecord aRefund = record(3, wire(3, new int[] {1}, DynamicMessage.newBuilder(refund).setField(refund.findFieldByName("amount"), 9.5).build()));
        assertThat(validator.problem(aRefund)).as("the indexes [1] name the second message").isNull();
        assertThat(validator.problem(record(4, wire(3, new int[] {5}, message)))).isEqualTo("value names message index 5, which schema id 3 does not have (format protobuf)");
        byte[] truncated = wire(3, new int[0], message);
        assertThat(validator.problem(record(5, java.util.Arrays.copyOf(truncated, truncated.length - 3))))
                .startsWith("value does not decode with its schema id 3 as shop.v1.Order (");

        EnvelopeParquetBuilder builder = builder(registry);
        Path file = LocalPartFiles.write(dir.resolve("orders.parquet"), new EnvelopeParquetWriterFactory(builder), records);
        assertThat(TypedColumnsFixture.readBack(file)).as("the exact records, raw bytes included").containsExactlyElementsOf(records);
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT value_schema_id, value_decoded.id, value_decoded.customer, value_decoded.status, "
                        + "value_decoded.lines[1].sku, value_decoded.lines[1].quantity, value_decoded.attributes['size'], value_decoded.iban, "
                        + "value_decoded.card, value_decoded.checksum, value_decoded.big, value_decoded.placed "
                        + "FROM read_parquet('" + file.getPath() + "') ORDER BY \"offset\"")) {
            rs.next();
            assertThat(rs.getInt(1)).isEqualTo(3);
            assertThat(rs.getLong(2)).isEqualTo(42);
            assertThat(rs.getString(3)).isEqualTo("ada");
            assertThat(rs.getString(4)).isEqualTo("PAID");
            assertThat(rs.getString(5)).isEqualTo("a-1");
            assertThat(rs.getInt(6)).isEqualTo(2);
            assertThat(rs.getInt(7)).isEqualTo(7);
            assertThat(rs.getString(8)).isEqualTo("DE00");
            assertThat(rs.getObject(9)).as("the oneof's other member").isNull();
            assertThat(rs.getBytes(10)).containsExactly(1, 2);
            assertThat(rs.getString(11)).as("uint64 as unsigned").isEqualTo("18446744073709551615");
            assertThat(rs.getObject(12)).as("a message field not set").isNull();
            rs.next();
            assertThat(rs.getObject(1)).as("a tombstone").isNull();
            rs.next();
            assertThat(rs.getLong(2)).isEqualTo(43);
            assertThat(rs.getString(3)).as("a proto3 string without presence: its default").isEqualTo("");
            assertThat(rs.getString(4)).isEqualTo("NEW");
        }
    }

    @Test
    void aNewerVersionClosesTheFileOnceAndOlderMessagesReadAsIt() throws Exception {
        Map<Integer, RegisteredSchema> registry = registry();
        EnvelopeParquetWriterFactory factory = new EnvelopeParquetWriterFactory(builder(registry));
        ArchiveRecord old = v1Order(registry);
        ArchiveRecord newer = v2Order(registry);
        Path path = new Path(dir.resolve("v2.parquet").toUri());
        try (FSDataOutputStream out = FileSystem.getLocalFileSystem().create(path, FileSystem.WriteMode.OVERWRITE)) {
            BulkWriter<ArchiveRecord> writer = factory.create(out);
            writer.addElement(old);
            assertThat(((SelectiveBulkWriter<ArchiveRecord>) writer).accepts(newer)).isFalse();
            writer.finish();
        }
        try (FSDataOutputStream out = FileSystem.getLocalFileSystem().create(path, FileSystem.WriteMode.OVERWRITE)) {
            BulkWriter<ArchiveRecord> writer = factory.create(out);
            writer.addElement(newer);
            assertThat(((SelectiveBulkWriter<ArchiveRecord>) writer).accepts(old)).isTrue();
            writer.addElement(old);
            writer.finish();
        }
        assertV1ReadAsV2ThenV2(path);
    }

    @Test
    void aWriterStartedAfterANewerVersionWasRegisteredReadsOlderMessagesAsTheSubjectsLatest() throws Exception {
        Map<Integer, RegisteredSchema> registry = registry();
        EnvelopeParquetBuilder builder = builder(registry);
        builder.useSchemas(TypedColumnsFixture.withLatest(source(registry), "orders-value", 4));
        ArchiveRecord old = v1Order(registry);
        ArchiveRecord newer = v2Order(registry);
        Path path = new Path(dir.resolve("restarted.parquet").toUri());
        try (FSDataOutputStream out = FileSystem.getLocalFileSystem().create(path, FileSystem.WriteMode.OVERWRITE)) {
            BulkWriter<ArchiveRecord> writer = new EnvelopeParquetWriterFactory(builder).create(out);
            writer.addElement(old);
            assertThat(((SelectiveBulkWriter<ArchiveRecord>) writer).accepts(newer))
                    .as("the file of a v1 first message is read as the subject's latest Order, v2: a v2 message does not close it").isTrue();
            writer.addElement(newer);
            writer.finish();
        }
        assertV1ReadAsV2ThenV2(path);
    }

    @Test
    void timestampsAreTimestampColumnsWrappersTheirValuesAndATimestampOutOfRangeIsBadInput() throws Exception {
        Descriptors.FileDescriptor file = io.archiver.registry.ProtoSchemaParser.parse("""
                syntax = "proto3";
                package shop.v3;
                import "google/protobuf/timestamp.proto";
                import "google/protobuf/wrappers.proto";
                message Shipment {
                  google.protobuf.Timestamp shipped = 1;
                  google.protobuf.Int64Value weight = 2;
                  google.protobuf.StringValue note = 3;
                  repeated google.protobuf.Timestamp scans = 4;
                }
                """);
        Map<Integer, RegisteredSchema> registry = Map.of(5, new RegisteredSchema(5, file));
        Descriptors.Descriptor shipment = file.findMessageTypeByName("Shipment");
        Descriptors.Descriptor timestamp = shipment.findFieldByName("shipped").getMessageType();
        Descriptors.Descriptor int64 = shipment.findFieldByName("weight").getMessageType();
        java.util.function.BiFunction<Long, Integer, DynamicMessage> at = (seconds, nanos) -> DynamicMessage.newBuilder(timestamp)
                .setField(timestamp.findFieldByName("seconds"), seconds).setField(timestamp.findFieldByName("nanos"), nanos).build();
        DynamicMessage full = DynamicMessage.newBuilder(shipment)
                .setField(shipment.findFieldByName("shipped"), at.apply(1_764_756_930L, 123_456_789))
                .setField(shipment.findFieldByName("weight"), DynamicMessage.newBuilder(int64).setField(int64.findFieldByName("value"), 0L).build())
                .addRepeatedField(shipment.findFieldByName("scans"), at.apply(-1L, 0))
                .addRepeatedField(shipment.findFieldByName("scans"), at.apply(253_402_300_799L, 999_999_999))
                .build();
        List<ArchiveRecord> records = List.of(record(0, wire(5, new int[0], full)), record(1, wire(5, new int[0], DynamicMessage.newBuilder(shipment).build())));

        PayloadValidator validator = new PayloadValidator(formats(), source(registry));
        assertThat(validator.problem(records.get(0))).isNull();
        DynamicMessage late = full.toBuilder().setRepeatedField(shipment.findFieldByName("scans"), 1, at.apply(253_402_300_800L, 0)).build();
        assertThat(validator.problem(record(2, wire(5, new int[0], late)))).isEqualTo("value holds a google.protobuf.Timestamp outside 0001-01-01 to "
                + "9999-12-31 (or nanos outside 0 to 999999999) in field 'scans' (schema id 5) (format protobuf)");
        DynamicMessage negativeNanos = full.toBuilder().setField(shipment.findFieldByName("shipped"), at.apply(0L, -1)).build();
        assertThat(validator.problem(record(3, wire(5, new int[0], negativeNanos)))).contains("in field 'shipped'");

        Path path = LocalPartFiles.write(dir.resolve("shipments.parquet"), new EnvelopeParquetWriterFactory(
                TypedColumnsFixture.builder(PayloadFormat.BYTES, PayloadFormat.PROTOBUF, registry)), records);
        assertThat(TypedColumnsFixture.readBack(path)).as("the exact records, raw bytes included").containsExactlyElementsOf(records);
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement()) {
            s.execute("SET TimeZone = 'UTC'");
            ResultSet rs = s.executeQuery("SELECT typeof(value_decoded.shipped), CAST(value_decoded.shipped AS VARCHAR), value_decoded.weight, "
                        + "typeof(value_decoded.weight), value_decoded.note, CAST(value_decoded.scans AS VARCHAR) "
                        + "FROM read_parquet('" + path.getPath() + "') ORDER BY \"offset\"");
            rs.next();
            assertThat(rs.getString(1)).isEqualTo("TIMESTAMP WITH TIME ZONE");
            assertThat(rs.getString(2)).as("microseconds: the nanos' last digits are in the raw bytes only").isEqualTo("2025-12-03 10:15:30.123456+00");
            assertThat(rs.getLong(3)).as("a wrapper set to its default is a value, not null").isZero();
            assertThat(rs.getString(4)).isEqualTo("BIGINT");
            assertThat(rs.getObject(5)).as("a wrapper not set").isNull();
            assertThat(rs.getString(6)).isEqualTo("['1969-12-31 23:59:59+00', '9999-12-31 23:59:59.999999+00']");
            rs.next();
            assertThat(rs.getObject(2)).as("a timestamp not set").isNull();
            assertThat(rs.getObject(3)).isNull();
        }
    }

    /** An Order of v1 (id 3) at offset 0. */
    private static ArchiveRecord v1Order(Map<Integer, RegisteredSchema> registry) throws Exception {
        Descriptors.Descriptor v1 = registry.get(3).protoFile().findMessageTypeByName("Order");
        return record(0, wire(3, new int[0], DynamicMessage.newBuilder(v1).setField(v1.findFieldByName("id"), 1L).build()));
    }

    /** An Order of v2 (id 4) with its new field set, at offset 1. */
    private static ArchiveRecord v2Order(Map<Integer, RegisteredSchema> registry) throws Exception {
        Descriptors.Descriptor v2 = registry.get(4).protoFile().findMessageTypeByName("Order");
        return record(1, wire(4, new int[0], DynamicMessage.newBuilder(v2).setField(v2.findFieldByName("id"), 2L)
                .setField(v2.findFieldByName("channel"), "app").build()));
    }

    /** The file holds the v1 order (schema id 3) read as v2, the new field's default, then the v2 one, as DuckDB reads them. */
    private static void assertV1ReadAsV2ThenV2(Path path) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT value_schema_id, value_decoded.channel FROM read_parquet('" + path.getPath() + "') ORDER BY \"offset\"")) {
            rs.next();
            assertThat(rs.getInt(1)).isEqualTo(3);
            assertThat(rs.getString(2)).as("v1 read as v2: the default").isEqualTo("");
            rs.next();
            assertThat(rs.getString(2)).isEqualTo("app");
        }
    }

    private static Map<Integer, RegisteredSchema> registry() {
        return Map.of(3, new RegisteredSchema(3, io.archiver.registry.ProtoSchemaParser.parse(ORDERS_V1)),
                4, new RegisteredSchema(4, io.archiver.registry.ProtoSchemaParser.parse(ORDERS_V2)));
    }

    private static SchemaSource source(Map<Integer, RegisteredSchema> registry) {
        return TypedColumnsFixture.source(registry);
    }

    private static PayloadFormats formats() {
        return new PayloadFormats(PayloadFormat.BYTES, PayloadFormat.PROTOBUF, PayloadFormat.BYTES);
    }

    private EnvelopeParquetBuilder builder(Map<Integer, RegisteredSchema> registry) {
        return TypedColumnsFixture.builder(PayloadFormat.BYTES, PayloadFormat.PROTOBUF, registry);
    }

    /** The wire format of Confluent's Protobuf serializer: magic byte, id, the message indexes (zig-zag varints), the message. */
    static byte[] wire(int id, int[] indexes, DynamicMessage message) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.write(new byte[] {0, (byte) (id >>> 24), (byte) (id >>> 16), (byte) (id >>> 8), (byte) id});
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        out.writeSInt32NoTag(indexes.length);
        for (int index : indexes) {
            out.writeSInt32NoTag(index);
        }
        message.writeTo(out);
        out.flush();
        return bytes.toByteArray();
    }

    static ArchiveRecord record(long offset, byte[] value) {
        return TypedColumnsFixture.record(offset, value);
    }
}
