package io.archiver.format.parquet;

import io.archiver.config.PayloadFormat;
import io.archiver.format.LocalPartFiles;
import io.archiver.format.SelectiveBulkWriter;
import io.archiver.record.ArchiveRecord;
import io.archiver.registry.RegisteredSchema;
import io.archiver.registry.RegistryPayloads;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Avro values in the wire format become typed Parquet columns beside their exact bytes, as DuckDB reads them: nested
 * records, arrays, maps, unions, enums, decimals, dates and timestamps; and records of an older schema version are
 * read as the file's newer one.
 */
class TypedAvroColumnsTest {

    static final Schema ORDER_V1 = new Schema.Parser().parse("""
            {"type": "record", "name": "Order", "namespace": "shop", "fields": [
              {"name": "id", "type": "long"},
              {"name": "customer", "type": "string"},
              {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
              {"name": "status", "type": {"type": "enum", "name": "Status", "symbols": ["NEW", "PAID", "SHIPPED"]}},
              {"name": "placed", "type": {"type": "long", "logicalType": "timestamp-millis"}},
              {"name": "day", "type": {"type": "int", "logicalType": "date"}},
              {"name": "tags", "type": {"type": "array", "items": "string"}},
              {"name": "attributes", "type": {"type": "map", "values": "int"}},
              {"name": "note", "type": ["null", "string"], "default": null},
              {"name": "payment", "type": ["null",
                  {"type": "record", "name": "Card", "fields": [{"name": "number", "type": "string"}]},
                  {"type": "record", "name": "Cash", "fields": [{"name": "currency", "type": "string"}]}], "default": null},
              {"name": "checksum", "type": {"type": "fixed", "name": "Checksum", "size": 4}},
              {"name": "ok", "type": "boolean"},
              {"name": "weight", "type": "double"}
            ]}""");

    /** Version 2 adds a field with a default: BACKWARD compatible, a v2 reader reads v1 data. */
    static final Schema ORDER_V2 = new Schema.Parser().parse(ORDER_V1.toString().replace(
            "{\"name\":\"weight\",\"type\":\"double\"}",
            "{\"name\":\"weight\",\"type\":\"double\"},{\"name\":\"channel\",\"type\":\"string\",\"default\":\"web\"}"));

    /** Order v1 under id 7 and v2 under id 9. */
    static final Map<Integer, RegisteredSchema> REGISTRY = Map.of(
            7, new RegisteredSchema(7, ORDER_V1),
            9, new RegisteredSchema(9, ORDER_V2));

    @TempDir java.nio.file.Path dir;

    @Test
    void avroValuesBecomeTypedColumnsThatDuckDbReadsBesideTheExactBytes() throws Exception {
        List<ArchiveRecord> records = List.of(
                record(0, RegistryPayloads.encode(7, ORDER_V1, order(ORDER_V1, 1, "ada", "12.50", "PAID", new GenericData.Record(ORDER_V1.getField("payment").schema().getTypes().get(1))))),
                record(1, null),
                record(2, RegistryPayloads.encode(7, ORDER_V1, order(ORDER_V1, 2, "bob", "0.99", "NEW", null))));
        EnvelopeParquetBuilder builder = builder();
        Path file = LocalPartFiles.write(dir.resolve("orders.parquet"), new EnvelopeParquetWriterFactory(builder), records);

        assertThat(TypedColumnsFixture.readBack(file)).as("the exact records, raw bytes included").containsExactlyElementsOf(records);
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT \"offset\", value_schema_id, value_decoded.id, value_decoded.customer, "
                        + "value_decoded.amount, value_decoded.status, value_decoded.placed, value_decoded.day, "
                        + "value_decoded.tags, value_decoded.attributes['size'], value_decoded.note, value_decoded.payment.member0.number, "
                        + "value_decoded.checksum, value_decoded.ok, value_decoded.weight, typeof(value_decoded.amount), typeof(value_decoded.placed) "
                        + "FROM read_parquet('" + file.getPath() + "') ORDER BY \"offset\"")) {
            rs.next();
            assertThat(rs.getInt(2)).isEqualTo(7);
            assertThat(rs.getLong(3)).isEqualTo(1);
            assertThat(rs.getString(4)).isEqualTo("ada");
            assertThat(rs.getBigDecimal(5)).isEqualByComparingTo("12.50");
            assertThat(rs.getString(6)).isEqualTo("PAID");
            assertThat(rs.getString(7)).isEqualTo("2026-03-07T05:04:03.123Z");
            assertThat(rs.getString(8)).isEqualTo("2026-03-07");
            assertThat(rs.getString(9)).isEqualTo("[a, b]");
            assertThat(rs.getInt(10)).isEqualTo(42);
            assertThat(rs.getString(11)).isEqualTo("first");
            assertThat(rs.getString(12)).isEqualTo("4111");
            assertThat(rs.getBytes(13)).containsExactly(1, 2, 3, 4);
            assertThat(rs.getBoolean(14)).isTrue();
            assertThat(rs.getDouble(15)).isEqualTo(1.5);
            assertThat(rs.getString(16)).isEqualTo("DECIMAL(10,2)");
            assertThat(rs.getString(17)).isEqualTo("TIMESTAMP WITH TIME ZONE");
            rs.next();
            assertThat(rs.getLong(1)).as("a tombstone").isEqualTo(1);
            assertThat(rs.getObject(2)).isNull();
            assertThat(rs.getObject(3)).isNull();
            rs.next();
            assertThat(rs.getString(4)).isEqualTo("bob");
            assertThat(rs.getObject(12)).as("a null union").isNull();
        }
    }

    @Test
    void aNewerVersionClosesTheFileOnceAndOlderRecordsAreReadAsTheNewerVersion() throws Exception {
        EnvelopeParquetBuilder builder = builder();
        EnvelopeParquetWriterFactory factory = new EnvelopeParquetWriterFactory(builder);
        ArchiveRecord v1 = record(0, RegistryPayloads.encode(7, ORDER_V1, order(ORDER_V1, 1, "ada", "1.00", "NEW", null)));
        GenericRecord newer = order(ORDER_V2, 2, "bob", "2.00", "NEW", null);
        newer.put("channel", "app");
        ArchiveRecord v2 = record(1, RegistryPayloads.encode(9, ORDER_V2, newer));
        ArchiveRecord v1Again = record(2, RegistryPayloads.encode(7, ORDER_V1, order(ORDER_V1, 3, "cy", "3.00", "NEW", null)));

        Path first = new Path(dir.resolve("first.parquet").toUri());
        try (FSDataOutputStream out = FileSystem.getLocalFileSystem().create(first, FileSystem.WriteMode.OVERWRITE)) {
            BulkWriter<ArchiveRecord> writer = factory.create(out);
            writer.addElement(v1);
            assertThat(((SelectiveBulkWriter<ArchiveRecord>) writer).accepts(v1Again)).isTrue();
            assertThat(((SelectiveBulkWriter<ArchiveRecord>) writer).accepts(v2)).as("a newer version closes the v1 file").isFalse();
            writer.finish();
        }
        Path second = new Path(dir.resolve("second.parquet").toUri());
        try (FSDataOutputStream out = FileSystem.getLocalFileSystem().create(second, FileSystem.WriteMode.OVERWRITE)) {
            BulkWriter<ArchiveRecord> writer = factory.create(out);
            writer.addElement(v2);
            assertThat(((SelectiveBulkWriter<ArchiveRecord>) writer).accepts(v1Again)).as("v1 data fits the v2 file").isTrue();
            writer.addElement(v1Again);
            writer.finish();
        }
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT value_schema_id, value_decoded.customer, value_decoded.channel FROM read_parquet('"
                        + second.getPath() + "') ORDER BY \"offset\"")) {
            rs.next();
            assertThat(rs.getInt(1)).isEqualTo(9);
            assertThat(rs.getString(3)).isEqualTo("app");
            rs.next();
            assertThat(rs.getInt(1)).as("the id it was written with").isEqualTo(7);
            assertThat(rs.getString(2)).isEqualTo("cy");
            assertThat(rs.getString(3)).as("v1 data read as v2: the field's default").isEqualTo("web");
        }
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*), count(value_decoded.channel) FROM read_parquet(['"
                        + first.getPath() + "', '" + second.getPath() + "'], union_by_name = true)")) {
            rs.next();
            assertThat(rs.getLong(1)).isEqualTo(3);
            assertThat(rs.getLong(2)).as("the v1 file has no channel column: null there").isEqualTo(2);
        }
    }

    @Test
    void aWriterStartedAfterANewerVersionWasRegisteredReadsOlderRecordsAsTheSubjectsLatest() throws Exception {
        EnvelopeParquetBuilder builder = builder();
        builder.useSchemas(TypedColumnsFixture.withLatest(TypedColumnsFixture.source(REGISTRY), "orders-value", 9));
        ArchiveRecord v1 = record(0, RegistryPayloads.encode(7, ORDER_V1, order(ORDER_V1, 1, "ada", "1.00", "NEW", null)));
        GenericRecord newer = order(ORDER_V2, 2, "bob", "2.00", "NEW", null);
        newer.put("channel", "app");
        ArchiveRecord v2 = record(1, RegistryPayloads.encode(9, ORDER_V2, newer));

        Path file = new Path(dir.resolve("restarted.parquet").toUri());
        try (FSDataOutputStream out = FileSystem.getLocalFileSystem().create(file, FileSystem.WriteMode.OVERWRITE)) {
            BulkWriter<ArchiveRecord> writer = new EnvelopeParquetWriterFactory(builder).create(out);
            writer.addElement(v1);
            assertThat(((SelectiveBulkWriter<ArchiveRecord>) writer).accepts(v2))
                    .as("the file of a v1 first record is read as the registered v2: a v2 record does not close it").isTrue();
            writer.addElement(v2);
            writer.finish();
        }
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT value_schema_id, value_decoded.channel FROM read_parquet('" + file.getPath() + "') ORDER BY \"offset\"")) {
            rs.next();
            assertThat(rs.getInt(1)).isEqualTo(7);
            assertThat(rs.getString(2)).as("v1 data read as v2: the field's default").isEqualTo("web");
            rs.next();
            assertThat(rs.getString(2)).isEqualTo("app");
        }
    }

    @Test
    void anOpenTypedFileCountsTheHeapOfItsTypedColumnsInWhatItBuffers() throws Exception {
        EnvelopeParquetBuilder builder = builder();
        Path path = new Path(dir.resolve("buffered.parquet").toUri());
        try (FSDataOutputStream out = FileSystem.getLocalFileSystem().create(path, FileSystem.WriteMode.OVERWRITE)) {
            BulkWriter<ArchiveRecord> writer = new EnvelopeParquetWriterFactory(builder).create(out);
            writer.addElement(record(0, RegistryPayloads.encode(7, ORDER_V1, order(ORDER_V1, 1, "ada", "1.00", "NEW", null))));
            int typedColumns = builder.typedColumns(new FileSchemas(null, new RegisteredSchema(7, ORDER_V1)));
            assertThat(typedColumns).as("the leaf columns of Order (a map has two, a union one per member)").isEqualTo(15);
            assertThat(((io.archiver.format.BufferingBulkWriter<ArchiveRecord>) writer).bufferedBytes())
                    .isGreaterThanOrEqualTo(EnvelopeParquetWriterFactory.OPEN_FILE_HEAP + typedColumns * EnvelopeParquetWriterFactory.TYPED_COLUMN_HEAP);
            writer.finish();
        }
    }

    private EnvelopeParquetBuilder builder() {
        return TypedColumnsFixture.builder(PayloadFormat.BYTES, PayloadFormat.AVRO, REGISTRY);
    }

    /** A record of the test topic with a header, as the Avro values' tests have them. */
    static ArchiveRecord record(long offset, byte[] value) {
        ArchiveRecord r = TypedColumnsFixture.record(offset, value);
        r.setHeaderKeys(new String[] {"h"});
        r.setHeaderValues(new byte[][] {{1}});
        return r;
    }

    static GenericRecord order(Schema schema, long id, String customer, String amount, String status, GenericRecord payment) {
        GenericRecord order = new GenericData.Record(schema);
        order.put("id", id);
        order.put("customer", customer);
        order.put("amount", ByteBuffer.wrap(new BigDecimal(amount).unscaledValue().toByteArray()));
        order.put("status", new GenericData.EnumSymbol(schema.getField("status").schema(), status));
        order.put("placed", 1_772_859_843_123L);
        order.put("day", 20_519);
        order.put("tags", List.of("a", "b"));
        order.put("attributes", Map.of("size", 42));
        order.put("note", payment != null ? "first" : null);
        if (payment != null) {
            payment.put("number", "4111");
        }
        order.put("payment", payment);
        order.put("checksum", new GenericData.Fixed(schema.getField("checksum").schema(), new byte[] {1, 2, 3, 4}));
        order.put("ok", true);
        order.put("weight", 1.5);
        return order;
    }
}
