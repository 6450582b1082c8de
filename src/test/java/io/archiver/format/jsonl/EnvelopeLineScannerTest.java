package io.archiver.format.jsonl;

import io.archiver.config.PayloadFormat;
import io.archiver.record.PayloadFormats;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The scanner finds the fields of the writer's lines in place and hands every other shape to the parser. */
class EnvelopeLineScannerTest {

    private static final String LINE = "{\"topic\":\"orders\",\"partition\":7,\"offset\":123456789012,\"timestamp\":-1,"
            + "\"timestamp_type\":\"CreateTime\",\"key\":null,\"value\":\"aGVsbG8=\","
            + "\"headers\":[{\"key\":\"trace\",\"value\":\"eA==\"},{\"key\":\"caf\u00e9\",\"value\":null}]}\n";

    private final EnvelopeLineScanner scanner = new EnvelopeLineScanner(PayloadFormats.BYTES);

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] b, int from, int to) {
        return from < 0 ? null : new String(b, from, to - from, StandardCharsets.UTF_8);
    }

    @Test
    void aLineOfTheWritersShapeIsFoundInPlace() {
        byte[] b = utf8("  " + LINE + "{}");
        assertThat(scanner.scan(b, 2, b.length, false)).isEqualTo(b.length - 2);
        assertThat(text(b, scanner.topicFrom, scanner.topicTo)).isEqualTo("orders");
        assertThat(scanner.partition).isEqualTo(7);
        assertThat(scanner.offset).isEqualTo(123_456_789_012L);
        assertThat(scanner.timestamp).isEqualTo(-1);
        assertThat(text(b, scanner.timestampTypeFrom, scanner.timestampTypeTo)).isEqualTo("CreateTime");
        assertThat(scanner.keyFrom).isEqualTo(-1);
        assertThat(text(b, scanner.valueFrom, scanner.valueTo)).isEqualTo("aGVsbG8=");
        assertThat(scanner.headers).isEqualTo(2);
        assertThat(text(b, scanner.headerKeyFrom[1], scanner.headerKeyTo[1])).isEqualTo("caf\u00e9");
        assertThat(text(b, scanner.headerValueFrom[0], scanner.headerValueTo[0])).isEqualTo("eA==");
        assertThat(scanner.headerValueFrom[1]).isEqualTo(-1);
        assertThat(scanner.reasonFrom).isEqualTo(-1);

        assertThat(scanner.scan(b, b.length - 2, b.length, true)).as("an empty object at the end of the bytes").isEqualTo(b.length);
        assertThat(scanner.topicFrom).isEqualTo(-1);
        assertThat(scanner.headers).isZero();
    }

    @Test
    void aRegistryPayloadsSchemaIdAndDecodedValueAreSkipped() {
        byte[] b = utf8("{\"offset\":5,\"value\":\"AAAAAAM=\",\"value_schema_id\":3,"
                + "\"value_decoded\":{\"note\":\"a } ] \\\" \\\\\",\"n\":[1,{\"x\":null}],\"w\":\"NaN\"},\"key_schema_id\":4,\"key_decoded\":-2.5e3,"
                + "\"dead_letter_reason\":\"too large\"}\r\n");
        assertThat(scanner.scan(b, 0, b.length, false)).isEqualTo(b.length);
        assertThat(scanner.offset).isEqualTo(5);
        assertThat(text(b, scanner.valueFrom, scanner.valueTo)).isEqualTo("AAAAAAM=");
        assertThat(text(b, scanner.reasonFrom, scanner.reasonTo)).isEqualTo("too large");
    }

    @Test
    void aJsonPayloadsDocumentIsFoundByItsBracketsAndQuotes() {
        EnvelopeLineScanner json = new EnvelopeLineScanner(new PayloadFormats(PayloadFormat.JSON, PayloadFormat.JSON, PayloadFormat.JSON));
        byte[] b = utf8("{\"key\":\"k \\\" }\",\"value\":{\"a\":[1,{\"b\":\"]}\"}],\"c\":-1.5e3},"
                + "\"headers\":[{\"key\":\"h\",\"value\":42},{\"key\":\"n\",\"value\":null}]}\n");
        assertThat(json.scan(b, 0, b.length, false)).isEqualTo(b.length);
        assertThat(text(b, json.keyFrom, json.keyTo)).isEqualTo("\"k \\\" }\"");
        assertThat(text(b, json.valueFrom, json.valueTo)).isEqualTo("{\"a\":[1,{\"b\":\"]}\"}],\"c\":-1.5e3}");
        assertThat(text(b, json.headerValueFrom[0], json.headerValueTo[0])).isEqualTo("42");
        assertThat(json.headerValueFrom[1]).isEqualTo(-1);

        byte[] exact = utf8("{\"value\":[1,2],\"value_bytes\":\"WzEsCiAyXQ==\"}\n");
        assertThat(json.scan(exact, 0, exact.length, false)).as("exact bytes beside the compact form").isEqualTo(EnvelopeLineScanner.OTHER);
    }

    @Test
    void linesOfAnyOtherShapeGoToTheParser() {
        List<String> others = List.of(
                "{\"topic\": \"orders\"}\n",                           // whitespace between tokens
                "{\"topic\":\"or\\u0064ers\"}\n",                      // an escape
                "{\"headers\":[{\"key\":\"a\\\"b\",\"value\":null}]}\n",
                "{\"value\":{\"id\":1}}\n",                            // an embedded JSON payload
                "{\"value\":[1,2]}\n",
                "{\"colour\":\"red\"}\n",                              // a field the envelope does not have
                "{\"offset\":012}\n",                                  // not JSON's number
                "{\"offset\":1.5}\n",
                "{\"offset\":12345678901234567890}\n",                 // beyond 18 digits
                "{\"partition\":4294967296}\n",                        // beyond an int
                "{\"offset\":1}{\"offset\":2}\n",                      // two objects on a line
                "{\"offset\":1,}\n",
                "[1]\n",
                "\n",
                "{\"offset\":1} x\n");
        for (String line : others) {
            byte[] b = utf8(line);
            assertThat(scanner.scan(b, 0, b.length, false)).as(line).isEqualTo(EnvelopeLineScanner.OTHER);
        }
    }

    @Test
    void aLineCutShortAsksForMoreUnlessTheBytesEndThere() {
        byte[] b = utf8(LINE);
        for (int cut = 0; cut < b.length; cut++) {
            assertThat(scanner.scan(b, 0, cut, false)).as("cut at %d", cut).isEqualTo(EnvelopeLineScanner.MORE);
            int last = b.length - 1; // the closing brace: the line is whole without its newline at the end of a file
            assertThat(scanner.scan(b, 0, cut, true)).as("cut at %d, end", cut).isEqualTo(cut == last ? last : EnvelopeLineScanner.OTHER);
        }
    }
}
