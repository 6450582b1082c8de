package io.archiver.format;

import io.archiver.archive.ArchiveFileReader;
import io.archiver.format.jsonl.JsonCompression;
import io.archiver.format.parquet.ParquetCompression;
import io.archiver.config.PayloadFormat;
import io.archiver.format.jsonl.JsonLinesFormat;
import io.archiver.format.jsonl.JsonLinesWriterFactory;
import io.archiver.format.parquet.EnvelopeParquetBuilder;
import io.archiver.format.parquet.EnvelopeParquetWriterFactory;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.DeadLetter;
import io.archiver.record.PayloadFormats;
import io.archiver.testutils.Await;


import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.InputStream;
import java.lang.ref.WeakReference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.zip.GZIPInputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Each format writes the full envelope and reads back to the same records, nulls included. */
class EnvelopeFormatsTest {

    private static final PayloadFormats TEXT =
            new PayloadFormats(PayloadFormat.STRING, PayloadFormat.JSON, PayloadFormat.STRING);

    @TempDir java.nio.file.Path dir;

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static List<ArchiveRecord> records() {
        return List.of(
                new ArchiveRecord("orders", 2, 41, 1_767_225_600_000L, "CreateTime", utf8("k-1"),
                        utf8("{\"id\":1,\"name\":\"caf\u00e9 \\\"x\\\"\"}"),
                        new String[] {"trace", "trace", "empty"}, new byte[][] {utf8("a"), utf8("b"), null}),
                new ArchiveRecord("orders", 2, 42, 1_767_225_601_000L, "LogAppendTime", null, null,
                        new String[0], new byte[0][]),
                new ArchiveRecord("orders", 2, 43, -1L, "NoTimestampType", utf8("k-3"), utf8("[1,\n 2]"),
                        new String[] {"h"}, new byte[][] {utf8("\u2603")}));
    }

    private Path write(String name, BulkWriter.Factory<ArchiveRecord> factory, List<ArchiveRecord> records) throws Exception {
        return LocalPartFiles.write(dir.resolve(name), factory, records);
    }

    @ParameterizedTest
    @EnumSource(ParquetCompression.class)
    void parquetRoundTripsWithEveryCodec(ParquetCompression codec) throws Exception {
        Path file = write("a.parquet",
                new EnvelopeParquetWriterFactory(new EnvelopeParquetBuilder(PayloadFormats.BYTES, codec, 3, 1 << 20, 64 * 1024)),
                records());
        assertThat(new ArchiveFileReader(PayloadFormats.BYTES).readAll(file)).containsExactlyElementsOf(records());
    }

    @Test
    void offsetColumnAloneGivesEveryRecordsOffsetInFileOrder() throws Exception {
        List<ArchiveRecord> many = orders(2_000);
        Path file = write("offsets.parquet",
                new EnvelopeParquetWriterFactory(new EnvelopeParquetBuilder(TEXT, ParquetCompression.ZSTD, 1, 64 * 1024, 8 * 1024)), many);
        List<Long> offsets = new java.util.ArrayList<>();
        new ArchiveFileReader(TEXT).offsets(file, offsets::add);
        assertThat(offsets).isEqualTo(many.stream().map(ArchiveRecord::getOffset).collect(java.util.stream.Collectors.toList()));
    }

    @Test
    void parquetZstdLevelTradesSizeForSpeedAndReadsBackTheSame() throws Exception {
        List<ArchiveRecord> many = orders(2_000);
        Path fastest = write("fast.parquet",
                new EnvelopeParquetWriterFactory(new EnvelopeParquetBuilder(TEXT, ParquetCompression.ZSTD, 1, 1 << 20, 64 * 1024)), many);
        Path smallest = write("small.parquet",
                new EnvelopeParquetWriterFactory(new EnvelopeParquetBuilder(TEXT, ParquetCompression.ZSTD, 19, 1 << 20, 64 * 1024)), many);
        assertThat(Files.size(dir.resolve("small.parquet"))).isLessThan(Files.size(dir.resolve("fast.parquet")));
        assertThat(new ArchiveFileReader(TEXT).readAll(fastest)).isEqualTo(many);
        assertThat(new ArchiveFileReader(TEXT).readAll(smallest)).isEqualTo(many);
    }

    @Test
    void parquetSchemaAnnotatesConfiguredFormats() throws Exception {
        Path file = write("b.parquet",
                new EnvelopeParquetWriterFactory(new EnvelopeParquetBuilder(TEXT, ParquetCompression.SNAPPY, 3, 1 << 20, 64 * 1024)),
                records().subList(0, 2));
        ParquetMetadata footer;
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(dir.resolve("b.parquet")))) {
            footer = reader.getFooter();
        }
        MessageType schema = footer.getFileMetaData().getSchema();
        assertThat(schema.getType("key").getLogicalTypeAnnotation()).isEqualTo(LogicalTypeAnnotation.stringType());
        assertThat(schema.getType("value").getLogicalTypeAnnotation()).isEqualTo(LogicalTypeAnnotation.jsonType());
        assertThat(schema.getType("timestamp").getLogicalTypeAnnotation())
                .isEqualTo(LogicalTypeAnnotation.timestampType(true, LogicalTypeAnnotation.TimeUnit.MILLIS));
        assertThat(footer.getFileMetaData().getKeyValueMetaData())
                .containsEntry("kafka-s3-archiver.envelope.version", "1")
                .containsEntry("kafka-s3-archiver.value.format", "json");
        assertThat(new ArchiveFileReader(TEXT).readAll(file)).containsExactlyElementsOf(records().subList(0, 2));
    }

    @Test
    void jsonLinesEmbedsJsonAndKeepsNullsOneRecordPerLineAndEveryPayloadExactly() throws Exception {
        Path file = write("c.jsonl", new JsonLinesWriterFactory(TEXT, JsonCompression.NONE, 0), records());
        List<String> lines = Files.readAllLines(dir.resolve("c.jsonl"));
        assertThat(lines).hasSize(3);
        JsonNode first = new ObjectMapper().readTree(lines.get(0));
        assertThat(first.get("topic").textValue()).isEqualTo("orders");
        assertThat(first.get("partition").intValue()).isEqualTo(2);
        assertThat(first.get("offset").longValue()).isEqualTo(41);
        assertThat(first.get("timestamp_type").textValue()).isEqualTo("CreateTime");
        assertThat(first.get("key").textValue()).isEqualTo("k-1");
        assertThat(first.get("value").get("name").textValue()).isEqualTo("caf\u00e9 \"x\"");
        assertThat(first.get("headers").get(2).get("value").isNull()).isTrue();
        JsonNode second = new ObjectMapper().readTree(lines.get(1));
        assertThat(second.get("key").isNull()).isTrue();
        assertThat(second.get("value").isNull()).isTrue();
        assertThat(first.has("value_bytes")).as("a document on one line stands as it is").isFalse();
        assertThat(lines.get(2)).as("one spread over lines: compact, then its exact bytes")
                .contains("\"value\":[1,2],\"value_bytes\":\"" + Base64.getEncoder().encodeToString(utf8("[1,\n 2]")) + "\"");

        assertThat(new ArchiveFileReader(TEXT).readAll(file)).as("every payload byte for byte").containsExactlyElementsOf(records());
    }

    @Test
    void topicsTimestampTypesAndHeaderKeysThatChangeFromLineToLineAreWrittenAsEachLineHasThem() throws Exception {
        String[][] keys = {{"a\"b", "caf\u00e9"}, {"a\"b", "tab\there"}, {"x"}, {"a\"b", "caf\u00e9", "\ud83d\ude00 \\ \u0001"}, {}};
        List<ArchiveRecord> records = new java.util.ArrayList<>();
        for (int i = 0; i < keys.length; i++) {
            byte[][] values = new byte[keys[i].length][];
            java.util.Arrays.fill(values, utf8("v" + i));
            records.add(new ArchiveRecord(i < 3 ? "orders" : "orders\"2", 0, i, i, i % 2 == 0 ? "CreateTime" : "LogAppendTime",
                    utf8("k"), utf8("v"), keys[i], values));
        }
        Path file = write("e.jsonl", new JsonLinesWriterFactory(PayloadFormats.BYTES, JsonCompression.NONE, 0), records);
        List<String> lines = Files.readAllLines(dir.resolve("e.jsonl"));
        for (int i = 0; i < keys.length; i++) {
            JsonNode line = new ObjectMapper().readTree(lines.get(i));
            assertThat(line.get("topic").textValue()).isEqualTo(records.get(i).getTopic());
            assertThat(line.get("timestamp_type").textValue()).isEqualTo(records.get(i).getTimestampType());
            assertThat(line.get("headers")).hasSize(keys[i].length);
            for (int h = 0; h < keys[i].length; h++) {
                assertThat(line.get("headers").get(h).get("key").textValue()).isEqualTo(keys[i][h]);
            }
        }
        assertThat(new ArchiveFileReader(PayloadFormats.BYTES).readAll(file)).containsExactlyElementsOf(records);
    }

    @Test
    void jsonLinesBytesAreBase64AndGzipIsOneStream() throws Exception {
        Path file = write("d.jsonl.gz", new JsonLinesWriterFactory(PayloadFormats.BYTES, JsonCompression.GZIP, 6), records());
        try (InputStream in = new GZIPInputStream(Files.newInputStream(dir.resolve("d.jsonl.gz")))) {
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            JsonNode first = new ObjectMapper().readTree(text.split("\n")[0]);
            assertThat(Base64.getDecoder().decode(first.get("key").textValue())).isEqualTo(utf8("k-1"));
        }
        assertThat(new ArchiveFileReader(PayloadFormats.BYTES).readAll(file)).containsExactlyElementsOf(records());
    }

    @Test
    void base64PayloadsOfEveryLengthReadBackAndABrokenOneNamesItsLine() throws Exception {
        List<ArchiveRecord> lengths = new ArrayList<>();
        for (int n = 0; n < 9_000; n += n < 16 ? 1 : 997) {
            byte[] value = new byte[n];
            new java.util.Random(n).nextBytes(value);
            lengths.add(new ArchiveRecord("t", 0, n, 0, "CreateTime", null, value, new String[] {"h"}, new byte[][] {value}));
        }
        Path file = write("lengths.jsonl", new JsonLinesWriterFactory(PayloadFormats.BYTES, JsonCompression.NONE, 0), lengths);
        assertThat(new ArchiveFileReader(PayloadFormats.BYTES).readAll(file)).containsExactlyElementsOf(lengths);

        java.nio.file.Path broken = dir.resolve("broken.jsonl");
        List<String> lines = new ArrayList<>(Files.readAllLines(dir.resolve("lengths.jsonl")).subList(0, 3));
        lines.set(2, lines.get(2).replace("\"value\":\"", "\"value\":\"é"));
        Files.write(broken, lines);
        assertThatThrownBy(() -> new ArchiveFileReader(PayloadFormats.BYTES).readAll(new Path(broken.toUri())))
                .hasMessageContaining("Not base64 at line 3");
    }

    @Test
    void jsonLinesOfAnotherShapeOrLongerThanTheReadBufferReadTheSame() throws Exception {
        List<ArchiveRecord> records = new ArrayList<>(records());
        byte[] large = new byte[700_000]; // its line is longer than the reader's buffer
        new java.util.Random(1).nextBytes(large);
        records.add(new ArchiveRecord("orders", 2, 44, 7, "CreateTime", null, large, new String[] {"h"}, new byte[][] {large}));
        write("shapes.jsonl", new JsonLinesWriterFactory(PayloadFormats.BYTES, JsonCompression.NONE, 0), records);
        ObjectMapper json = new ObjectMapper();
        List<String> lines = new ArrayList<>();
        for (String line : Files.readAllLines(dir.resolve("shapes.jsonl"))) {
            // the same objects as a person or another tool might write them: spaced out, escaped, CRLF
            lines.add(json.writerWithDefaultPrettyPrinter().writeValueAsString(json.readTree(line)).replace("\n", " ")
                    .replace("orders", "ord\\u0065rs") + "\r");
            lines.add("");
        }
        Files.write(dir.resolve("spaced.jsonl"), lines);
        Path spaced = new Path(dir.resolve("spaced.jsonl").toUri());
        assertThat(new ArchiveFileReader(PayloadFormats.BYTES).readAll(spaced)).containsExactlyElementsOf(records);
        assertThat(new ArchiveFileReader(PayloadFormats.BYTES).readAll(new Path(dir.resolve("shapes.jsonl").toUri())))
                .containsExactlyElementsOf(records);

        Files.writeString(dir.resolve("pretty.jsonl"), "{\n  \"offset\": 1\n}\n");
        assertThatThrownBy(() -> new ArchiveFileReader(PayloadFormats.BYTES).readAll(new Path(dir.resolve("pretty.jsonl").toUri())))
                .hasMessageContaining("line 1 is not JSON");
        Files.writeString(dir.resolve("array.jsonl"), "{\"offset\":1}\n\n[1]\n");
        assertThatThrownBy(() -> new ArchiveFileReader(PayloadFormats.BYTES).readAll(new Path(dir.resolve("array.jsonl").toUri())))
                .hasMessageContaining("line 3 is not a JSON object");
    }

    @Test
    void jsonLinesOffsetsAndCountsEqualTheRecordsRead() throws Exception {
        List<ArchiveRecord> records = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            ArchiveRecord r = records().get(i % records().size());
            records.add(new ArchiveRecord(r.getTopic(), i % 3, 1_000 + i, r.getTimestamp(), r.getTimestampType(), r.getKey(), r.getValue(),
                    r.getHeaderKeys(), r.getHeaderValues()));
        }
        Path file = write("offsets.jsonl.zst", new JsonLinesWriterFactory(TEXT, JsonCompression.ZSTD, 3), records);
        FormatReader reader = JsonLinesFormat.INSTANCE.reader(TEXT);
        for (int partition : new int[] {FormatReader.ALL_PARTITIONS, 0, 2}) {
            List<Long> offsets = new ArrayList<>();
            reader.offsets(file, partition, offsets::add);
            assertThat(offsets).isEqualTo(records.stream().filter(r -> partition == FormatReader.ALL_PARTITIONS || r.getPartition() == partition)
                    .map(ArchiveRecord::getOffset).toList());
        }
        assertThat(reader.count(file)).isEqualTo(50);
    }

    @Test
    void deadLetterLineEndsWithItsReasonAndReadsBackAsTheRecordWithIt() throws Exception {
        DeadLetter dead = new DeadLetter(records().get(0), "value is not valid JSON (format json): unexpected character, near byte offset 9");
        Path file = write("dead.jsonl", new JsonLinesWriterFactory(PayloadFormats.BYTES, JsonCompression.NONE, 0), List.of(dead, records().get(1)));
        List<String> lines = Files.readAllLines(dir.resolve("dead.jsonl"));
        assertThat(new ObjectMapper().readTree(lines.get(0)).get("dead_letter_reason").textValue()).isEqualTo(dead.getReason());
        assertThat(lines.get(1)).doesNotContain("dead_letter_reason");

        List<ArchiveRecord> back = new ArchiveFileReader(PayloadFormats.BYTES).readAll(file);
        assertThat(back).containsExactly(records().get(0), records().get(1));
        assertThat(back.get(0)).isInstanceOf(DeadLetter.class).extracting(r -> ((DeadLetter) r).getReason()).isEqualTo(dead.getReason());
        assertThat(back.get(1)).isNotInstanceOf(DeadLetter.class);
    }

    @Test
    void gzipLevelTradesSizeForSpeedAndReadsBackTheSame() throws Exception {
        List<ArchiveRecord> many = orders(2_000);
        Path fastest = write("fast.jsonl.gz", new JsonLinesWriterFactory(TEXT, JsonCompression.GZIP, 1), many);
        Path smallest = write("small.jsonl.gz", new JsonLinesWriterFactory(TEXT, JsonCompression.GZIP, 9), many);
        assertThat(Files.size(dir.resolve("small.jsonl.gz"))).isLessThan(Files.size(dir.resolve("fast.jsonl.gz")));
        assertThat(new ArchiveFileReader(TEXT).readAll(fastest)).isEqualTo(new ArchiveFileReader(TEXT).readAll(smallest));
        assertThat(new ArchiveFileReader(TEXT).readAll(fastest)).hasSize(2_000);
    }

    @ParameterizedTest(name = "level {0}")
    @ValueSource(ints = {1, 3}) // 1, the default, with its own match table (ZstdMatchTable)
    void zstdDecompressesToThePlainFileAndIsSmallerThanGzip(int level) throws Exception {
        List<ArchiveRecord> many = orders(2_000);
        Path zstd = write("orders.jsonl.zst", new JsonLinesWriterFactory(TEXT, JsonCompression.ZSTD, level), many);
        Path gzip = write("orders.jsonl.gz", new JsonLinesWriterFactory(TEXT, JsonCompression.GZIP, 6), many);
        Path plain = write("orders.jsonl", new JsonLinesWriterFactory(TEXT, JsonCompression.NONE, 0), many);
        try (InputStream in = new ZstdInputStreamNoFinalizer(Files.newInputStream(dir.resolve("orders.jsonl.zst")))) {
            assertThat(in.readAllBytes()).isEqualTo(Files.readAllBytes(dir.resolve("orders.jsonl")));
        }
        assertThat(Files.size(dir.resolve("orders.jsonl.zst"))).isLessThan(Files.size(dir.resolve("orders.jsonl.gz")));
        assertThat(new ArchiveFileReader(TEXT).readAll(zstd)).isEqualTo(new ArchiveFileReader(TEXT).readAll(plain));
        assertThat(new ArchiveFileReader(TEXT).readAll(gzip)).isEqualTo(many);
    }

    @Test
    void zstdFrameDeclaresA128KiBWindow() throws Exception {
        write("window.jsonl.zst", new JsonLinesWriterFactory(TEXT, JsonCompression.ZSTD, 3), orders(20_000));
        byte[] header = Arrays.copyOf(Files.readAllBytes(dir.resolve("window.jsonl.zst")), 6);
        assertThat(header).startsWith(0x28, 0xB5, 0x2F, 0xFD); // the frame's magic number, little-endian
        assertThat(header[4] & 0x20).as("not a single-segment frame: it carries a window descriptor").isZero();
        int windowLog = 10 + ((header[5] & 0xFF) >>> 3);
        assertThat(windowLog).isEqualTo(17); // the memory of each open file's context follows the window (writer)
    }

    @Test
    void abandonedZstdFileIsReleasedWithoutWritingToIt() throws Exception {
        Path path = new Path(dir.resolve("abandoned.jsonl.zst").toUri());
        try (FSDataOutputStream out = FileSystem.getLocalFileSystem().create(path, FileSystem.WriteMode.OVERWRITE)) {
            WeakReference<BulkWriter<ArchiveRecord>> abandoned = abandon(out, orders(20_000));
            long written = out.getPos();
            assertThat(written).isPositive(); // zstd wrote blocks while records came in
            // a failover disposes the open file without finishing it: once the writer is collected, zstd-jni's
            // finalizer frees its context, and its late close must not add the frame's end to the abandoned file
            Await.until("the abandoned writer collected and finalized", Duration.ofSeconds(30), () -> {
                System.gc();
                System.runFinalization();
                return abandoned.get() == null;
            });
            System.runFinalization();
            assertThat(out.getPos()).isEqualTo(written);
        }
    }

    private static WeakReference<BulkWriter<ArchiveRecord>> abandon(FSDataOutputStream out, List<ArchiveRecord> records)
            throws Exception {
        BulkWriter<ArchiveRecord> writer = new JsonLinesWriterFactory(TEXT, JsonCompression.ZSTD, 1).create(out);
        for (ArchiveRecord r : records) {
            writer.addElement(r);
        }
        return new WeakReference<>(writer);
    }

    /** Small JSON orders that compress well, as real payloads do. */
    private static List<ArchiveRecord> orders(int count) {
        List<ArchiveRecord> orders = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            orders.add(new ArchiveRecord("orders", 1, i, 1_767_225_600_000L + i, "CreateTime", utf8("customer-" + (i % 50)),
                    utf8("{\"order\":" + i + ",\"status\":\"" + (i % 3 == 0 ? "paid" : "open") + "\",\"amount\":" + (i * 7 % 1000) + "}"),
                    new String[] {"source"}, new byte[][] {utf8("web")}));
        }
        return orders;
    }
}
