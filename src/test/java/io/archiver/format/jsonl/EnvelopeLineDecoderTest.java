package io.archiver.format.jsonl;

import io.archiver.config.PayloadFormat;
import io.archiver.format.LocalPartFiles;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.DeadLetter;
import io.archiver.record.PayloadFormats;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A line read in place makes the same record as the same line read by the JSON parser, and both the record written,
 * whatever it holds: every payload comes back byte for byte, json documents included.
 */
class EnvelopeLineDecoderTest {

    private static final String[] NAMES = {"orders", "trace", "caf\u00e9", "a\"b", "back\\slash", "tab\there", "\u2603", "", "x-1.y_2"};
    /** Documents a line holds as they are, and ones it cannot (spread over lines, spaced around, {@code null}). */
    private static final String[] JSON = {"\"plain\"", "\"esc\\\"aped\"", "{\"id\":1}", "[1,2]", "42", "true", "\"\"",
            "{\"a\": 1.10, \"a\": 2}", "1e400", "12345678901234567890.123456789", "{\"x\":\"caf\u00e9 \\u00e9\"}",
            "null", "[1,\n 2]", " [1] ", "{\r\n}", "{\"tab\":\t1}"};

    @TempDir Path dir;

    @Test
    void scannedAndParsedLinesMakeTheSameRecords() throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        Random random = new Random(32);
        int scanned = 0;
        int parsed = 0;
        for (PayloadFormats formats : List.of(PayloadFormats.BYTES,
                new PayloadFormats(PayloadFormat.STRING, PayloadFormat.JSON, PayloadFormat.STRING))) {
            List<ArchiveRecord> records = new ArrayList<>();
            for (int i = 0; i < 2_000; i++) {
                records.add(record(random, formats, i));
            }
            Path file = dir.resolve(formats.value() + ".jsonl");
            LocalPartFiles.write(file, new JsonLinesWriterFactory(formats, JsonCompression.NONE, 0), records);

            EnvelopeLineScanner scanner = new EnvelopeLineScanner(formats);
            EnvelopeLineDecoder decoder = new EnvelopeLineDecoder(formats);
            List<String> lines = Files.readAllLines(file);
            assertThat(lines).hasSize(records.size());
            for (int i = 0; i < lines.size(); i++) {
                byte[] b = ("{\"before\":1}\n" + lines.get(i) + "\n").getBytes(StandardCharsets.UTF_8);
                int from = 13; // the line's start in the read buffer
                ArchiveRecord fromParser;
                try (JsonParser p = mapper.createParser(b, from, b.length - from)) {
                    p.nextToken();
                    fromParser = decoder.record(p, b, from, i + 1);
                }
                assertThat(fromParser).as(lines.get(i)).isEqualTo(records.get(i));
                if (scanner.scan(b, from, b.length, false) == EnvelopeLineScanner.OTHER) {
                    parsed++;
                    continue;
                }
                scanned++;
                ArchiveRecord inPlace = decoder.record(scanner, b, i + 1);
                assertThat(inPlace).as(lines.get(i)).isEqualTo(fromParser);
                assertThat(inPlace instanceof DeadLetter).isEqualTo(fromParser instanceof DeadLetter);
                if (inPlace instanceof DeadLetter dead) {
                    assertThat(dead.getReason()).isEqualTo(((DeadLetter) fromParser).getReason());
                }
            }
        }
        assertThat(scanned).as("lines read in place").isGreaterThan(1_000);
        assertThat(parsed).as("lines left to the parser (escapes, embedded JSON)").isGreaterThan(500);
    }

    @Test
    void aJsonPayloadThatIsNotOneDocumentIsRefusedNotWrittenIntoALine() {
        PayloadFormats json = new PayloadFormats(PayloadFormat.BYTES, PayloadFormat.JSON, PayloadFormat.BYTES);
        for (String notOne : List.of("{\"a\":", "1 2", "{\"a\":1}}", "[1,]")) {
            ArchiveRecord r = new ArchiveRecord("t", 0, 0, 0, "CreateTime", null, notOne.getBytes(StandardCharsets.UTF_8),
                    new String[0], new byte[0][]);
            assertThatThrownBy(() -> LocalPartFiles.write(dir.resolve("refused.jsonl"), new JsonLinesWriterFactory(json, JsonCompression.NONE, 0),
                    List.of(r))).as(notOne).isInstanceOf(com.fasterxml.jackson.core.JsonProcessingException.class);
        }
    }

    private static ArchiveRecord record(Random random, PayloadFormats formats, int offset) {
        int headers = random.nextInt(4);
        String[] keys = new String[headers];
        byte[][] values = new byte[headers][];
        for (int h = 0; h < headers; h++) {
            keys[h] = NAMES[random.nextInt(NAMES.length)];
            values[h] = payload(random, formats.header());
        }
        ArchiveRecord r = new ArchiveRecord(random.nextInt(5) == 0 ? "other.topic" : "orders", random.nextInt(3), offset,
                random.nextBoolean() ? -1 : 1_767_225_600_000L + random.nextInt(1_000_000), random.nextBoolean() ? "CreateTime" : "LogAppendTime",
                payload(random, formats.key()), payload(random, formats.value()), keys, values);
        return random.nextInt(10) == 0 ? new DeadLetter(r, random.nextBoolean() ? "too large" : "not \"JSON\" at byte 3") : r;
    }

    private static byte[] payload(Random random, PayloadFormat format) {
        if (random.nextInt(6) == 0) {
            return null;
        }
        return switch (format) {
            case STRING -> NAMES[random.nextInt(NAMES.length)].getBytes(StandardCharsets.UTF_8);
            case JSON -> JSON[random.nextInt(JSON.length)].getBytes(StandardCharsets.UTF_8);
            default -> {
                byte[] bytes = new byte[random.nextInt(40)];
                random.nextBytes(bytes);
                yield bytes;
            }
        };
    }
}
