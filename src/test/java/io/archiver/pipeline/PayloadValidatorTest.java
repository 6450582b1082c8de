package io.archiver.pipeline;

import io.archiver.config.PayloadFormat;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class PayloadValidatorTest {

    private static ArchiveRecord value(byte[] value) {
        return new ArchiveRecord("t", 0, 7, 0, "CreateTime", null, value, new String[] {"h"}, new byte[][] {{(byte) 0xff}});
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void bytesFormatAcceptsAnything() {
        assertThat(new PayloadValidator(PayloadFormats.BYTES).problem(value(new byte[] {(byte) 0xc3}))).isNull();
    }

    @Test
    void jsonFormatAcceptsOneValueAndNulls() {
        PayloadValidator v = new PayloadValidator(new PayloadFormats(PayloadFormat.BYTES, PayloadFormat.JSON, PayloadFormat.BYTES));
        assertThat(v.problem(value(utf8("{\"a\":[1,2,{\"b\":null}]}")))).isNull();
        assertThat(v.problem(value(utf8("\n  42 \n")))).isNull();
        assertThat(v.problem(value(null))).isNull();
        assertThat(v.problem(value(utf8("{\"a\":")))).startsWith("value is not valid JSON");
        assertThat(v.problem(value(utf8("1 2")))).isEqualTo("value holds more than one JSON value (format json)");
        assertThat(v.problem(value(utf8("  ")))).startsWith("value is empty");
    }

    @Test
    void stringFormatRejectsInvalidUtf8InHeaders() {
        PayloadValidator v = new PayloadValidator(new PayloadFormats(PayloadFormat.STRING, PayloadFormat.STRING, PayloadFormat.STRING));
        assertThat(v.problem(value(utf8("caf\u00e9")))).isEqualTo("header 'h' is not valid UTF-8 (format string)");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "password=hunter2-SECRET",
        "{\"apiKey\": hunter2-SECRET}",
        "{\"apiKey\": \"hunter2-SECRET",
        "[\"hunter2-SECRET\", \u0001]",
        "hunter2-SECRET {"
    })
    void invalidJsonIsDescribedByKindAndPositionNeverByItsBytes(String payload) {
        PayloadValidator v = new PayloadValidator(new PayloadFormats(PayloadFormat.BYTES, PayloadFormat.JSON, PayloadFormat.BYTES));
        String problem = v.problem(value(utf8(payload)));
        assertThat(problem).startsWith("value is not valid JSON (format json): ").contains("near byte offset ");
        assertThat(problem).doesNotContain("hunter2").doesNotContain("SECRET").doesNotContain("password").doesNotContain("apiKey");
    }

    @Test
    void theMessageSaysNearWhichByteTheParserStopped() {
        PayloadValidator v = new PayloadValidator(new PayloadFormats(PayloadFormat.BYTES, PayloadFormat.JSON, PayloadFormat.BYTES));
        assertThat(v.problem(value(utf8("{\"a\": nope}")))).isEqualTo("value is not valid JSON (format json): unrecognized token, near byte offset 11");
        assertThat(v.problem(value(utf8("{\"a\":")))).isEqualTo("value is not valid JSON (format json): it ends inside a value, near byte offset 5");
    }
}
