package io.archiver.format.jsonl;

import io.archiver.config.PayloadFormat;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.DeadLetter;
import io.archiver.record.PayloadFormats;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;

import static io.archiver.record.EnvelopeFields.*;
import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * Makes the record of a JSON Lines line: from where {@link EnvelopeLineScanner} found its fields in the line's bytes,
 * or from a JSON parser at its opening brace (a line of another shape). Payloads are decoded with the payload formats
 * they were written with (base64 by the JDK's decoder, from the bytes or the parser's characters; a {@code json}
 * document is its bytes as they stand in the line, or the exact bytes written beside its compact form); a line with
 * a {@code dead_letter_reason} is a {@link DeadLetter}.
 */
final class EnvelopeLineDecoder {

    private static final Base64.Decoder BASE64 = Base64.getDecoder();

    private final PayloadFormats formats;
    /** Strings of the bytes seen last: a file repeats its topic, timestamp types and header keys on every line. */
    private final RepeatedStrings strings = new RepeatedStrings();
    /** The characters of a parsed base64 string as bytes, for the decoder; grows to the longest payload read. */
    private byte[] ascii = new byte[4096];

    EnvelopeLineDecoder(PayloadFormats formats) {
        this.formats = formats;
    }

    /** The record of line {@code line} of a file, which {@code s} has just scanned in {@code b}. */
    ArchiveRecord record(EnvelopeLineScanner s, byte[] b, long line) throws IOException {
        int n = s.headers;
        String[] headerKeys = new String[n];
        byte[][] headerValues = new byte[n][];
        for (int i = 0; i < n; i++) {
            headerKeys[i] = strings.of(b, s.headerKeyFrom[i], s.headerKeyTo[i], i + 2);
            headerValues[i] = payload(b, s.headerValueFrom[i], s.headerValueTo[i], formats.header(), line);
        }
        ArchiveRecord record = new ArchiveRecord(strings.of(b, s.topicFrom, s.topicTo, 0), s.partition, s.offset, s.timestamp,
                strings.of(b, s.timestampTypeFrom, s.timestampTypeTo, 1), payload(b, s.keyFrom, s.keyTo, formats.key(), line),
                payload(b, s.valueFrom, s.valueTo, formats.value(), line), headerKeys, headerValues);
        return s.reasonFrom < 0 ? record : new DeadLetter(record, new String(b, s.reasonFrom, s.reasonTo - s.reasonFrom, UTF_8));
    }

    /** The payload whose string's characters are {@code b[from, to)}, or null for {@code from} -1. */
    private byte[] payload(byte[] b, int from, int to, PayloadFormat format, long line) throws IOException {
        if (from < 0) {
            return null;
        }
        return switch (format) {
            case STRING -> Arrays.copyOfRange(b, from, to);
            case JSON -> Arrays.copyOfRange(b, from, to); // the document as it stands in the line
            default -> base64(ByteBuffer.wrap(b, from, to - from), line);
        };
    }

    /**
     * The record of line {@code line} of a file, read by {@code p} from its opening brace to its closing one; {@code p}
     * parses {@code b} from {@code from} on (a json payload is the document's bytes as they stand there).
     */
    ArchiveRecord record(JsonParser p, byte[] b, int from, long line) throws IOException {
        String topic = null;
        String timestampType = null;
        int partition = 0;
        long offset = 0;
        long timestamp = 0;
        byte[] key = null;
        byte[] value = null;
        byte[] exactKey = null;
        byte[] exactValue = null;
        List<String> headerKeys = new ArrayList<>(4);
        List<byte[]> headerValues = new ArrayList<>(4);
        String deadLetterReason = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken t = p.nextToken();
            switch (field) {
                case TOPIC -> topic = p.getText();
                case PARTITION -> partition = p.getIntValue();
                case OFFSET -> offset = p.getLongValue();
                case TIMESTAMP -> timestamp = p.getLongValue();
                case TIMESTAMP_TYPE -> timestampType = p.getText();
                case KEY -> key = payload(p, t, formats.key(), b, from, line);
                case VALUE -> value = payload(p, t, formats.value(), b, from, line);
                case KEY_BYTES -> exactKey = base64(p, t, line);
                case VALUE_BYTES -> exactValue = base64(p, t, line);
                case HEADERS -> {
                    while (p.nextToken() == JsonToken.START_OBJECT) {
                        String headerKey = null;
                        byte[] headerValue = null;
                        byte[] exactHeaderValue = null;
                        while (p.nextToken() == JsonToken.FIELD_NAME) {
                            String name = p.currentName();
                            JsonToken ht = p.nextToken();
                            if (name.equals(HEADER_KEY)) {
                                headerKey = p.getText();
                            } else if (name.equals(HEADER_VALUE)) {
                                headerValue = payload(p, ht, formats.header(), b, from, line);
                            } else if (name.equals(HEADER_VALUE_BYTES)) {
                                exactHeaderValue = base64(p, ht, line);
                            } else {
                                p.skipChildren();
                            }
                        }
                        headerKeys.add(headerKey);
                        headerValues.add(exactHeaderValue != null ? exactHeaderValue : headerValue);
                    }
                }
                case DEAD_LETTER_REASON -> deadLetterReason = p.getText();
                default -> p.skipChildren();
            }
        }
        ArchiveRecord record = new ArchiveRecord(topic, partition, offset, timestamp, timestampType,
                exactKey != null ? exactKey : key, exactValue != null ? exactValue : value, headerKeys.toArray(new String[0]), headerValues.toArray(new byte[0][]));
        return deadLetterReason == null ? record : new DeadLetter(record, deadLetterReason);
    }

    private byte[] payload(JsonParser p, JsonToken t, PayloadFormat format, byte[] b, int from, long line) throws IOException {
        if (t == JsonToken.VALUE_NULL) {
            return null;
        }
        return switch (format) {
            case STRING -> p.getText().getBytes(UTF_8);
            case JSON -> document(p, b, from);
            default -> base64(p, t, line);
        };
    }

    /** The bytes of the document at the parser's current token, as they stand in {@code b} (which it parses from {@code from}). */
    private static byte[] document(JsonParser p, byte[] b, int from) throws IOException {
        long start = p.currentTokenLocation().getByteOffset();
        p.skipChildren();
        p.finishToken();
        long end = p.currentLocation().getByteOffset();
        return Arrays.copyOfRange(b, from + (int) start, from + (int) end);
    }

    /** A base64 string from the parser's own characters (no String made), for the JDK's decoder. */
    private byte[] base64(JsonParser p, JsonToken t, long line) throws IOException {
        if (t != JsonToken.VALUE_STRING) {
            return p.getBinaryValue(); // its error names what is there instead
        }
        char[] chars = p.getTextCharacters();
        int from = p.getTextOffset();
        int length = p.getTextLength();
        if (ascii.length < length) {
            ascii = new byte[Math.max(length, ascii.length * 2)];
        }
        int any = 0;
        for (int i = 0; i < length; i++) {
            char c = chars[from + i];
            any |= c;
            ascii[i] = (byte) c;
        }
        if (any > 0x7f) {
            throw notBase64(line, "a character outside base64's alphabet");
        }
        return base64(ByteBuffer.wrap(ascii, 0, length), line);
    }

    /**
     * A base64 string (what {@link JsonLinesWriter} writes with the JDK's encoder) decoded by the JDK's decoder,
     * which rejects any byte outside the alphabet (a non-ASCII character's bytes included).
     */
    private static byte[] base64(ByteBuffer chars, long line) throws IOException {
        try {
            ByteBuffer decoded = BASE64.decode(chars);
            byte[] array = decoded.array();
            return decoded.remaining() == array.length ? array : Arrays.copyOf(array, decoded.remaining());
        } catch (IllegalArgumentException e) {
            throw notBase64(line, e.getMessage());
        }
    }

    private static IOException notBase64(long line, String why) {
        return new IOException("Not base64 at line " + line + " of a JSON Lines archive file: " + why);
    }
}
