package io.archiver.format.parquet;

import io.archiver.config.PayloadFormat;
import io.archiver.format.LocalPartFiles;
import io.archiver.record.ArchiveRecord;
import io.archiver.registry.RegistryPayloads;

import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.flink.core.fs.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.api.InitContext;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.archiver.format.parquet.TypedAvroColumnsTest.ORDER_V1;
import static io.archiver.format.parquet.TypedAvroColumnsTest.ORDER_V2;
import static io.archiver.format.parquet.TypedAvroColumnsTest.order;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * With {@code sink.parquet.decoded-payload-bytes: rebuild}, an Avro payload its typed columns rebuild byte for byte
 * is left out of the value column and read back rebuilt, exactly; every payload they would rebuild otherwise (not in
 * Avro's own encoding, or of another version than the file's schema) keeps its bytes.
 */
class RebuiltPayloadsTest {

    @TempDir java.nio.file.Path dir;

    @Test
    void payloadsTheColumnsRebuildAreLeftOutAndReadBackByteForByte() throws Exception {
        GenericRecord cash = new GenericData.Record(ORDER_V1.getField("payment").schema().getTypes().get(2));
        cash.put("currency", "EUR");
        GenericRecord inCash = order(ORDER_V1, -5, "bø", "-1234.56", "SHIPPED", null);
        inCash.put("payment", cash);
        inCash.put("tags", List.of());
        inCash.put("attributes", Map.of("a", 1, "b", -2, "c", Integer.MIN_VALUE));
        inCash.put("weight", Double.NaN);
        List<ArchiveRecord> records = new ArrayList<>();
        records.add(TypedAvroColumnsTest.record(0, RegistryPayloads.encode(7, ORDER_V1,
                order(ORDER_V1, Long.MAX_VALUE, "ada", "12.50", "PAID", new GenericData.Record(ORDER_V1.getField("payment").schema().getTypes().get(1))))));
        records.add(TypedAvroColumnsTest.record(1, null));
        records.add(TypedAvroColumnsTest.record(2, RegistryPayloads.encode(7, ORDER_V1, inCash)));
        for (int i = 3; i < 200; i++) {
            records.add(TypedAvroColumnsTest.record(i, RegistryPayloads.encode(7, ORDER_V1, order(ORDER_V1, i * 31L, "customer " + i, i + ".01", "NEW", null))));
        }
        Path kept = write("kept.parquet", DecodedPayloadBytes.KEEP, records);
        Path rebuilt = write("rebuilt.parquet", DecodedPayloadBytes.REBUILD, records);

        assertThat(TypedColumnsFixture.readBack(rebuilt)).as("every record exactly, payloads rebuilt").containsExactlyElementsOf(records);
        assertThat(storedValues(rebuilt)).as("no payload stored").isZero();
        assertThat(storedValues(kept)).isEqualTo(records.size() - 1);
        assertThat(new File(rebuilt.getPath()).length()).as("smaller than the file keeping the bytes")
                .isLessThan(new File(kept.getPath()).length());
    }

    @Test
    void aFileThatKeptEveryPayloadIsReadThroughTheEnvelopesColumnsAlone() throws Exception {
        List<ArchiveRecord> records = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            records.add(TypedAvroColumnsTest.record(i, RegistryPayloads.encode(7, ORDER_V1, order(ORDER_V1, i, "customer " + i, i + ".01", "NEW", null))));
        }
        Path kept = write("kept.parquet", DecodedPayloadBytes.KEEP, records);
        Path rebuilt = write("rebuilt.parquet", DecodedPayloadBytes.REBUILD, records);

        assertThat(requestedColumns(kept, Map.of())).containsExactly(
                "topic", "partition", "offset", "timestamp", "timestamp_type", "key", "value", "headers");
        assertThat(requestedColumns(rebuilt, Map.of())).contains("value_schema_id", "value_decoded");
        assertThat(requestedColumns(kept, Map.of(EnvelopeWriteSupport.PAYLOAD_BYTES_KEY, Set.of())))
                .as("a file written before files said whether they kept their payloads").contains("value_decoded");
        assertThat(TypedColumnsFixture.readBack(kept)).containsExactlyElementsOf(records);
        assertThat(TypedColumnsFixture.readBack(rebuilt)).containsExactlyElementsOf(records);
    }

    /** The columns the reader asks for in {@code file}, with {@code changed} footer keys replaced (an empty set: removed). */
    private static List<String> requestedColumns(Path file, Map<String, Set<String>> changed) throws Exception {
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(java.nio.file.Path.of(file.getPath())))) {
            Map<String, Set<String>> footer = new HashMap<>();
            reader.getFileMetaData().getKeyValueMetaData().forEach((k, v) -> footer.put(k, Set.of(v)));
            changed.forEach((k, v) -> {
                if (v.isEmpty()) {
                    footer.remove(k);
                } else {
                    footer.put(k, v);
                }
            });
            MessageType requested = new ArchiveRecordReadSupport()
                    .init(new InitContext(new Configuration(false), footer, reader.getFileMetaData().getSchema())).getRequestedSchema();
            return requested.getFields().stream().map(Type::getName).toList();
        }
    }

    @Test
    void payloadsNotInAvrosOwnEncodingOrOfAnotherVersionKeepTheirBytes() throws Exception {
        GenericRecord base = order(ORDER_V1, 1, "ada", "1.00", "NEW", null);
        byte[] canonical = RegistryPayloads.encode(7, ORDER_V1, base);
        List<String> manyTags = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            manyTags.add("tag " + i);
        }
        GenericRecord tagged = order(ORDER_V1, 2, "bob", "2.00", "NEW", null);
        tagged.put("tags", manyTags);
        GenericRecord newer = order(ORDER_V2, 3, "cy", "3.00", "PAID", null);
        newer.put("channel", "app");

        byte[] paddedVarint = new byte[canonical.length + 1];
        System.arraycopy(canonical, 0, paddedVarint, 0, 5);
        paddedVarint[5] = (byte) (canonical[5] | 0x80); // id 1 as two bytes: 0x82 0x00
        System.arraycopy(canonical, 6, paddedVarint, 7, canonical.length - 6);
        byte[] booleanTwo = canonical.clone();
        booleanTwo[canonical.length - 9] = 2; // "ok", read as false
        byte[] otherNaN = canonical.clone();
        long nan = 0x7ff8_0000_0000_0001L; // a NaN Java's canonical form is not
        for (int i = 0; i < 8; i++) {
            otherNaN[canonical.length - 8 + i] = (byte) (nan >>> (8 * i));
        }
        List<ArchiveRecord> records = List.of(
                TypedAvroColumnsTest.record(0, RegistryPayloads.encode(9, ORDER_V2, newer)),
                TypedAvroColumnsTest.record(1, canonical),
                TypedAvroColumnsTest.record(2, paddedVarint),
                TypedAvroColumnsTest.record(3, booleanTwo),
                TypedAvroColumnsTest.record(4, otherNaN),
                TypedAvroColumnsTest.record(5, inBlocks(tagged)));
        Path file = write("mixed.parquet", DecodedPayloadBytes.REBUILD, records);

        assertThat(TypedColumnsFixture.readBack(file)).containsExactlyElementsOf(records);
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT \"offset\", value IS NULL, value_decoded.id, value_decoded.ok, value_decoded.channel FROM read_parquet('"
                        + file.getPath() + "') ORDER BY \"offset\"")) {
            List<String> rows = new ArrayList<>();
            while (rs.next()) {
                rows.add(rs.getLong(1) + " " + (rs.getBoolean(2) ? "rebuilt" : "kept") + " " + rs.getLong(3) + " " + rs.getBoolean(4) + " " + rs.getString(5));
            }
            assertThat(rows).containsExactly(
                    "0 rebuilt 3 true app",
                    "1 kept 1 true web", // version 1 in the version 2 file: read as version 2
                    "2 kept 1 true web",
                    "3 kept 1 false web",
                    "4 kept 1 true web",
                    "5 kept 2 true web");
        }
    }

    private Path write(String name, DecodedPayloadBytes bytes, List<ArchiveRecord> records) throws Exception {
        EnvelopeParquetBuilder builder = TypedColumnsFixture.builder(PayloadFormat.BYTES, PayloadFormat.AVRO, TypedAvroColumnsTest.REGISTRY).decodedPayloadBytes(bytes);
        return LocalPartFiles.write(dir.resolve(name), new EnvelopeParquetWriterFactory(builder), records);
    }

    private static long storedValues(Path file) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(value) FROM read_parquet('" + file.getPath() + "')")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The wire format with arrays and maps in sized blocks (negative counts), as Avro's blocking encoder writes them. */
    private static byte[] inBlocks(GenericRecord datum) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(new byte[] {0, 0, 0, 0, 7});
        BinaryEncoder encoder = new EncoderFactory().configureBlockSize(64).blockingBinaryEncoder(out, null);
        new GenericDatumWriter<>(ORDER_V1).write(datum, encoder);
        encoder.flush();
        return out.toByteArray();
    }
}
