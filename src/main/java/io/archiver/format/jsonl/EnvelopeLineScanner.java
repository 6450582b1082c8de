package io.archiver.format.jsonl;

import io.archiver.config.PayloadFormat;
import io.archiver.record.PayloadFormats;

import java.util.Arrays;

import static io.archiver.record.EnvelopeFields.*;
import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * Finds the fields of one line as {@link JsonLinesWriter} writes it, in the line's bytes, without making a string
 * or a token of it: where each string's characters start and end, the numbers' values. A payload string is left in
 * place, for the reader to decode its base64 straight from the bytes (Jackson turns each into characters first,
 * which cost a JSON Lines read more than half its time).
 *
 * <p>Only the compact shape the writer produces is recognised: the envelope's fields in any order, strings without
 * escapes, integer numbers, null payloads, embedded documents of {@code json} payloads (found by their brackets and
 * quotes, their grammar not checked: the writer checked it), header objects, and a registry payload's schema id and
 * decoded value (skipped: a reader never needs them). Anything else (whitespace between tokens, an escape in a
 * string, a payload's exact bytes beside its compact form, an unknown field) ends the scan with {@link #OTHER}, and
 * the reader parses that line with a full JSON parser; so does a line whose bytes are not JSON at all, which the
 * parser then rejects with its own message.
 */
final class EnvelopeLineScanner {

    /** {@link #scan} found a line of another shape; a full parser has to read it. */
    static final int OTHER = -1;
    /** {@link #scan} reached the end of the bytes before the end of the line. */
    static final int MORE = -2;

    private static final byte[][] FIELDS = names(TOPIC, PARTITION, OFFSET, TIMESTAMP, TIMESTAMP_TYPE, KEY, VALUE, HEADERS,
            KEY_SCHEMA_ID, KEY_DECODED, VALUE_SCHEMA_ID, VALUE_DECODED, DEAD_LETTER_REASON);
    private static final int F_TOPIC = 0, F_PARTITION = 1, F_OFFSET = 2, F_TIMESTAMP = 3, F_TIMESTAMP_TYPE = 4, F_KEY = 5,
            F_VALUE = 6, F_HEADERS = 7, F_KEY_SCHEMA_ID = 8, F_KEY_DECODED = 9, F_VALUE_SCHEMA_ID = 10,
            F_VALUE_DECODED = 11, F_DEAD_LETTER_REASON = 12;
    private static final byte[] HEADER_KEY_NAME = HEADER_KEY.getBytes(UTF_8);
    private static final byte[] HEADER_VALUE_NAME = HEADER_VALUE.getBytes(UTF_8);
    private static final byte[] NULL = "null".getBytes(UTF_8);

    /** Bytes that end the plain part of a string: its closing quote, an escape, a control character. */
    private static final boolean[] STRING_STOP = new boolean[256];

    static {
        for (int c = 0; c < 0x20; c++) {
            STRING_STOP[c] = true;
        }
        STRING_STOP['"'] = true;
        STRING_STOP['\\'] = true;
    }

    // What the last successful scan found. A string field is the range [from, to) of its characters, between its
    // quotes, a json payload the range of its document (a string's quotes included); from is -1 for null or a
    // missing field.
    int topicFrom, topicTo;
    int partition;
    long offset;
    long timestamp;
    int timestampTypeFrom, timestampTypeTo;
    int keyFrom, keyTo;
    int valueFrom, valueTo;
    int reasonFrom, reasonTo;
    int headers;
    int[] headerKeyFrom = new int[4], headerKeyTo = new int[4], headerValueFrom = new int[4], headerValueTo = new int[4];

    /** Which payloads are {@code json} documents: key, value, header values. */
    private final boolean jsonKey, jsonValue, jsonHeader;
    /** Where the scan is; a scan that meets the end of the bytes stops with {@link #MORE} through this sentinel. */
    private int at;
    /** The end of the string or document the scan read last. */
    private int to;
    private byte[] b;
    private int limit;

    EnvelopeLineScanner(PayloadFormats formats) {
        jsonKey = formats.key() == PayloadFormat.JSON;
        jsonValue = formats.value() == PayloadFormat.JSON;
        jsonHeader = formats.header() == PayloadFormat.JSON;
    }

    /**
     * Scans the line that starts at {@code from}: the index after its newline when it has the writer's shape
     * (after the last byte when {@code end} says the bytes end there), {@link #OTHER} when it has another one,
     * {@link #MORE} when the bytes up to {@code limit} hold only part of it.
     */
    int scan(byte[] bytes, int from, int limit, boolean end) {
        this.b = bytes;
        this.limit = limit;
        this.at = from;
        topicFrom = timestampTypeFrom = keyFrom = valueFrom = reasonFrom = -1;
        partition = 0;
        offset = timestamp = 0;
        headers = 0;
        try {
            expect('{');
            if (peek() != '}') {
                do {
                    field();
                } while (next(',', '}'));
            } else {
                at++;
            }
            return lineEnd(end);
        } catch (Shape s) {
            return s == Shape.MORE && !end ? MORE : OTHER;
        }
    }

    private void field() {
        int name = fieldName();
        expect(':');
        switch (name) {
            case F_TOPIC -> { topicFrom = plainString(); topicTo = to; }
            case F_PARTITION -> {
                long p = integer();
                if (p != (int) p) {
                    throw Shape.OTHER;
                }
                partition = (int) p;
            }
            case F_OFFSET -> offset = integer();
            case F_TIMESTAMP -> timestamp = integer();
            case F_TIMESTAMP_TYPE -> { timestampTypeFrom = plainString(); timestampTypeTo = to; }
            case F_KEY -> { keyFrom = payload(jsonKey); keyTo = to; }
            case F_VALUE -> { valueFrom = payload(jsonValue); valueTo = to; }
            case F_HEADERS -> headerArray();
            case F_KEY_SCHEMA_ID, F_VALUE_SCHEMA_ID -> integer();
            case F_KEY_DECODED, F_VALUE_DECODED -> skipValue();
            case F_DEAD_LETTER_REASON -> { reasonFrom = plainString(); reasonTo = to; }
            default -> throw Shape.OTHER;
        }
    }

    private void headerArray() {
        expect('[');
        if (peek() == ']') {
            at++;
            return;
        }
        do {
            expect('{');
            int keyFrom = -1, keyTo = -1, valueFrom = -1, valueTo = -1;
            do {
                int name = plainString();
                int nameTo = to;
                expect(':');
                if (Arrays.equals(b, name, nameTo, HEADER_KEY_NAME, 0, HEADER_KEY_NAME.length)) {
                    keyFrom = payload(false);
                    keyTo = to;
                } else if (Arrays.equals(b, name, nameTo, HEADER_VALUE_NAME, 0, HEADER_VALUE_NAME.length)) {
                    valueFrom = payload(jsonHeader);
                    valueTo = to;
                } else {
                    throw Shape.OTHER;
                }
            } while (next(',', '}'));
            addHeader(keyFrom, keyTo, valueFrom, valueTo);
        } while (next(',', ']'));
    }

    private void addHeader(int keyFrom, int keyTo, int valueFrom, int valueTo) {
        if (headers == headerKeyFrom.length) {
            int n = headers * 2;
            headerKeyFrom = Arrays.copyOf(headerKeyFrom, n);
            headerKeyTo = Arrays.copyOf(headerKeyTo, n);
            headerValueFrom = Arrays.copyOf(headerValueFrom, n);
            headerValueTo = Arrays.copyOf(headerValueTo, n);
        }
        headerKeyFrom[headers] = keyFrom;
        headerKeyTo[headers] = keyTo;
        headerValueFrom[headers] = valueFrom;
        headerValueTo[headers] = valueTo;
        headers++;
    }

    /** The field's index in {@link #FIELDS}, or {@link Shape#OTHER} for a name the envelope does not have. */
    private int fieldName() {
        int from = plainString();
        int length = to - from;
        for (int i = 0; i < FIELDS.length; i++) {
            byte[] name = FIELDS[i];
            if (name.length == length && Arrays.equals(b, from, from + length, name, 0, length)) {
                return i;
            }
        }
        throw Shape.OTHER;
    }

    /**
     * A payload: the start of its string's characters, or of its document when it is a {@code json} one; -1 for null
     * (a {@code json} document {@code null} is written with its exact bytes beside it, and read by the parser).
     */
    private int payload(boolean json) {
        if (peek() == 'n') {
            for (byte c : NULL) {
                expect(c);
            }
            to = -1;
            return -1;
        }
        if (!json) {
            return plainString();
        }
        int from = at;
        skipValue();
        to = at;
        return from;
    }

    /** A string without escapes: the index of its first character; {@link #at} is past its closing quote. */
    private int plainString() {
        expect('"');
        int from = at;
        int i = at;
        while (i < limit && !STRING_STOP[b[i] & 0xff]) {
            i++;
        }
        if (i == limit) {
            throw Shape.MORE;
        }
        if (b[i] != '"') {
            throw Shape.OTHER;
        }
        to = i;
        at = i + 1;
        return from;
    }

    /** An integer as JSON writes one: an optional minus, then 0 or digits not starting with 0, at most 18 of them. */
    private long integer() {
        boolean negative = peek() == '-';
        if (negative) {
            at++;
        }
        int from = at;
        long value = 0;
        while (true) {
            byte c = peek();
            if (c < '0' || c > '9') {
                break;
            }
            value = value * 10 + (c - '0');
            at++;
        }
        int digits = at - from;
        if (digits == 0 || digits > 18 || (digits > 1 && b[from] == '0')) {
            throw Shape.OTHER;
        }
        return negative ? -value : value;
    }

    /**
     * Skips one JSON value of any kind (a registry payload's decoded value, which no reader needs, or a json
     * payload's document), minding strings and nesting but not checking the value's grammar.
     */
    private void skipValue() {
        int depth = 0;
        do {
            byte c = peek();
            at++;
            switch (c) {
                case '"' -> {
                    while (peek() != '"') {
                        at += peek() == '\\' ? 2 : 1;
                    }
                    at++;
                }
                case '{', '[' -> depth++;
                case '}', ']' -> {
                    if (--depth < 0) {
                        throw Shape.OTHER;
                    }
                }
                case ',', ':', ' ', '\t', '\r', '\n' -> {
                    if (depth == 0) {
                        throw Shape.OTHER;
                    }
                }
                default -> {
                    if (depth == 0) { // a scalar: runs to the next delimiter
                        while (peek() != ',' && peek() != '}') {
                            at++;
                        }
                    }
                }
            }
        } while (depth > 0);
    }

    /** After the closing brace: optional spaces or a carriage return, then the newline or the end of the bytes. */
    private int lineEnd(boolean end) {
        while (at < limit) {
            byte c = b[at++];
            if (c == '\n') {
                return at;
            }
            if (c != ' ' && c != '\t' && c != '\r') {
                throw Shape.OTHER;
            }
        }
        if (!end) {
            throw Shape.MORE;
        }
        return at;
    }

    /** Consumes {@code close} (true) or {@code separator} (false), or ends the scan. */
    private boolean next(char separator, char close) {
        byte c = peek();
        at++;
        if (c == separator) {
            return true;
        }
        if (c == close) {
            return false;
        }
        throw Shape.OTHER;
    }

    private void expect(int c) {
        if (peek() != c) {
            throw Shape.OTHER;
        }
        at++;
    }

    private byte peek() {
        if (at >= limit) {
            throw Shape.MORE;
        }
        return b[at];
    }

    private static byte[][] names(String... names) {
        byte[][] bytes = new byte[names.length][];
        for (int i = 0; i < names.length; i++) {
            bytes[i] = names[i].getBytes(UTF_8);
        }
        return bytes;
    }

    /** Why a scan stopped early; preallocated and without a stack trace, as a line of another shape is no error. */
    private static final class Shape extends RuntimeException {
        static final Shape OTHER = new Shape();
        static final Shape MORE = new Shape();

        private Shape() {
            super(null, null, false, false);
        }
    }
}
