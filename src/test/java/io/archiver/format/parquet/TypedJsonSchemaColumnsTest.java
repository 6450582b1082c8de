package io.archiver.format.parquet;

import io.archiver.config.PayloadFormat;
import io.archiver.format.LocalPartFiles;
import io.archiver.format.SelectiveBulkWriter;
import io.archiver.record.ArchiveRecord;
import io.archiver.registry.JsonSchemaType;
import io.archiver.registry.RegisteredSchema;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** JSON Schema payloads become typed Parquet columns beside their exact bytes, as DuckDB reads them, version by version. */
class TypedJsonSchemaColumnsTest {

    static final String ORDER_V1 = """
            {"$schema": "http://json-schema.org/draft-07/schema#", "title": "Order", "type": "object",
             "definitions": {"line": {"type": "object", "properties": {"sku": {"type": "string"}, "quantity": {"type": "integer"}}}},
             "properties": {
               "id": {"type": "integer"},
               "customer": {"type": ["string", "null"]},
               "amount": {"type": "number"},
               "paid": {"type": "boolean"},
               "lines": {"type": "array", "items": {"$ref": "#/definitions/line"}},
               "attributes": {"type": "object", "additionalProperties": {"type": "string"}},
               "extra": {"oneOf": [{"type": "string"}, {"type": "integer"}]}
             },
             "required": ["id"]}""";
    static final String ORDER_V2 = ORDER_V1.replace("\"paid\": {\"type\": \"boolean\"},", "\"paid\": {\"type\": \"boolean\"}, \"channel\": {\"type\": \"string\"},");

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir java.nio.file.Path dir;

    @Test
    void jsonSchemaValuesBecomeTypedColumnsThatDuckDbReads() throws Exception {
        List<ArchiveRecord> records = List.of(
                record(0, 3, "{\"id\": 1, \"customer\": \"ada\", \"amount\": 12.5, \"paid\": true, \"lines\": [{\"sku\": \"a-1\", \"quantity\": 2}],"
                        + " \"attributes\": {\"size\": \"L\"}, \"extra\": {\"any\": [1, 2]}, \"undeclared\": \"kept in the bytes\"}"),
                record(1, 3, "{\"id\": 2}"),
                record(2, 3, null));
        EnvelopeParquetBuilder builder = builder();
        Path file = LocalPartFiles.write(dir.resolve("orders.parquet"), new EnvelopeParquetWriterFactory(builder), records);

        assertThat(TypedColumnsFixture.readBack(file)).as("the exact records, raw bytes included").containsExactlyElementsOf(records);
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT value_schema_id, value_decoded.id, value_decoded.customer, value_decoded.amount, "
                        + "value_decoded.paid, value_decoded.lines[1].sku, value_decoded.lines[1].quantity, value_decoded.attributes['size'], "
                        + "value_decoded.extra, typeof(value_decoded.id), typeof(value_decoded.amount) FROM read_parquet('" + file.getPath() + "') ORDER BY \"offset\"")) {
            rs.next();
            assertThat(rs.getInt(1)).isEqualTo(3);
            assertThat(rs.getLong(2)).isEqualTo(1);
            assertThat(rs.getString(3)).isEqualTo("ada");
            assertThat(rs.getDouble(4)).isEqualTo(12.5);
            assertThat(rs.getBoolean(5)).isTrue();
            assertThat(rs.getString(6)).isEqualTo("a-1");
            assertThat(rs.getLong(7)).isEqualTo(2);
            assertThat(rs.getString(8)).isEqualTo("L");
            assertThat(rs.getString(9)).as("what a column cannot type: its JSON text").isEqualTo("{\"any\":[1,2]}");
            assertThat(rs.getString(10)).isEqualTo("BIGINT");
            assertThat(rs.getString(11)).isEqualTo("DOUBLE");
            rs.next();
            assertThat(rs.getLong(2)).isEqualTo(2);
            assertThat(rs.getObject(3)).as("a field left out").isNull();
            rs.next();
            assertThat(rs.getObject(1)).as("a tombstone").isNull();
        }
    }

    @Test
    void aNewerVersionClosesTheFileOnceAndOlderDocumentsFitTheNewerColumns() throws Exception {
        EnvelopeParquetBuilder builder = builder();
        EnvelopeParquetWriterFactory factory = new EnvelopeParquetWriterFactory(builder);
        ArchiveRecord v1 = record(0, 3, "{\"id\": 1, \"paid\": false}");
        ArchiveRecord v2 = record(1, 4, "{\"id\": 2, \"channel\": \"app\"}");
        ArchiveRecord v1Again = record(2, 3, "{\"id\": 3}");
        Path first = new Path(dir.resolve("first.parquet").toUri());
        try (FSDataOutputStream out = FileSystem.getLocalFileSystem().create(first, FileSystem.WriteMode.OVERWRITE)) {
            BulkWriter<ArchiveRecord> writer = factory.create(out);
            writer.addElement(v1);
            assertThat(((SelectiveBulkWriter<ArchiveRecord>) writer).accepts(v2)).as("a newer version closes the v1 file").isFalse();
            writer.finish();
        }
        Path second = new Path(dir.resolve("second.parquet").toUri());
        try (FSDataOutputStream out = FileSystem.getLocalFileSystem().create(second, FileSystem.WriteMode.OVERWRITE)) {
            BulkWriter<ArchiveRecord> writer = factory.create(out);
            writer.addElement(v2);
            assertThat(((SelectiveBulkWriter<ArchiveRecord>) writer).accepts(v1Again)).isTrue();
            writer.addElement(v1Again);
            writer.finish();
        }
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT value_schema_id, value_decoded.id, value_decoded.channel FROM read_parquet(['"
                        + first.getPath() + "', '" + second.getPath() + "'], union_by_name = true) ORDER BY \"offset\"")) {
            rs.next();
            assertThat(rs.getObject(3)).isNull();
            rs.next();
            assertThat(rs.getString(3)).isEqualTo("app");
            rs.next();
            assertThat(rs.getInt(1)).isEqualTo(3);
            assertThat(rs.getLong(2)).isEqualTo(3);
        }
        JsonSchemaType changedType = JsonSchemaType.of(JSON.readTree(ORDER_V1.replace("\"id\": {\"type\": \"integer\"}", "\"id\": {\"type\": \"string\"}")));
        assertThat(JsonSchemaType.of(JSON.readTree(ORDER_V2)).reads(changedType)).as("a property whose type changed does not fit").isFalse();
    }

    @Test
    void anAvroKeyAndAJsonSchemaValueGetColumnsOfTheirOwn() throws Exception {
        org.apache.avro.Schema keySchema = new org.apache.avro.Schema.Parser().parse(
                "{\"type\": \"record\", \"name\": \"OrderKey\", \"fields\": [{\"name\": \"tenant\", \"type\": \"string\"}, {\"name\": \"order\", \"type\": \"long\"}]}");
        org.apache.avro.generic.GenericRecord key = new org.apache.avro.generic.GenericData.Record(keySchema);
        key.put("tenant", "acme");
        key.put("order", 42L);
        ArchiveRecord r = record(0, 3, "{\"id\": 42, \"customer\": \"ada\"}");
        r.setKey(io.archiver.registry.RegistryPayloads.encode(11, keySchema, key));
        Map<Integer, RegisteredSchema> registry = Map.of(
                3, new RegisteredSchema(3, JsonSchemaType.of(JSON.readTree(ORDER_V1))),
                11, new RegisteredSchema(11, keySchema));
        EnvelopeParquetBuilder builder = TypedColumnsFixture.builder(PayloadFormat.AVRO, PayloadFormat.JSON_SCHEMA, registry);
        Path file = LocalPartFiles.write(dir.resolve("keyed.parquet"), new EnvelopeParquetWriterFactory(builder), List.of(r));
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT key_schema_id, key_decoded.tenant, key_decoded.\"order\", value_schema_id, value_decoded.customer FROM read_parquet('"
                        + file.getPath() + "')")) {
            rs.next();
            assertThat(rs.getInt(1)).isEqualTo(11);
            assertThat(rs.getString(2)).isEqualTo("acme");
            assertThat(rs.getLong(3)).isEqualTo(42);
            assertThat(rs.getInt(4)).isEqualTo(3);
            assertThat(rs.getString(5)).isEqualTo("ada");
        }
        assertThat(TypedColumnsFixture.readBack(file)).containsExactly(r);
    }

    private EnvelopeParquetBuilder builder() throws Exception {
        return TypedColumnsFixture.builder(PayloadFormat.BYTES, PayloadFormat.JSON_SCHEMA, Map.of(
                3, new RegisteredSchema(3, JsonSchemaType.of(JSON.readTree(ORDER_V1))),
                4, new RegisteredSchema(4, JsonSchemaType.of(JSON.readTree(ORDER_V2)))));
    }

    /** A record whose value is {@code json} in the wire format with {@code schemaId} (null: a tombstone). */
    static ArchiveRecord record(long offset, int schemaId, String json) {
        byte[] value = null;
        if (json != null) {
            byte[] document = json.getBytes(StandardCharsets.UTF_8);
            value = new byte[5 + document.length];
            value[4] = (byte) schemaId;
            System.arraycopy(document, 0, value, 5, document.length);
        }
        return TypedColumnsFixture.record(offset, value);
    }
}
