package io.archiver.validation;

import io.archiver.config.PayloadFormat;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Checks that a record can be written in the configured payload formats: {@code string} payloads must be
 * valid UTF-8 and {@code json} payloads exactly one valid JSON value. Not thread-safe; one per task.
 */
public final class PayloadValidator {

    private final PayloadFormats formats;
    private final CharsetDecoder utf8 =
            StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT);
    private final JsonFactory json = new JsonFactory();

    public PayloadValidator(PayloadFormats formats) {
        this.formats = formats;
    }

    /** Why the record cannot be written, or null when it can. */
    public String problem(ArchiveRecord record) {
        if (formats.allBytes()) {
            return null;
        }
        String p = problem("key", record.getKey(), formats.key());
        if (p == null) {
            p = problem("value", record.getValue(), formats.value());
        }
        byte[][] values = record.getHeaderValues();
        for (int i = 0; p == null && i < values.length; i++) {
            p = problem("header '" + record.getHeaderKeys()[i] + "'", values[i], formats.header());
        }
        return p;
    }

    private String problem(String what, byte[] bytes, PayloadFormat format) {
        if (bytes == null || format == PayloadFormat.BYTES) {
            return null;
        }
        if (format == PayloadFormat.STRING) {
            try {
                utf8.reset().decode(ByteBuffer.wrap(bytes));
                return null;
            } catch (CharacterCodingException e) {
                return what + " is not valid UTF-8 (format string)";
            }
        }
        try (JsonParser parser = json.createParser(bytes)) {
            if (parser.nextToken() == null) {
                return what + " is empty, not a JSON value (format json)";
            }
            parser.skipChildren();
            if (parser.nextToken() != null) {
                return what + " holds more than one JSON value (format json)";
            }
            return null;
        } catch (JsonProcessingException e) {
            return what + " is not valid JSON (format json): " + e.getOriginalMessage();
        } catch (IOException e) {
            return what + " could not be read as JSON: " + e.getMessage();
        }
    }
}
