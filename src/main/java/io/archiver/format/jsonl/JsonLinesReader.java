package io.archiver.format.jsonl;

import io.archiver.config.PayloadFormat;
import io.archiver.format.FormatReader;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.DeadLetter;
import io.archiver.record.PayloadFormats;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import org.apache.flink.core.fs.Path;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.zip.GZIPInputStream;

import static io.archiver.record.EnvelopeFields.*;
import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * Reads JSON Lines files (uncompressed, gzip or zstd by suffix) line by line from a buffer of their bytes. A line
 * as {@link JsonLinesWriter} writes it is read by {@link EnvelopeLineScanner} where it lies: base64 payloads are
 * decoded straight from the buffer, repeated topics and header keys reuse their strings. Any other line is read
 * with Jackson's streaming parser (only a JSON payload is read as a tree, to write it back compact). Payloads are
 * decoded with the payload formats they were written with; a line of a dead-letter file reads as a
 * {@link DeadLetter}.
 */
final class JsonLinesReader implements FormatReader {

    private static final Base64.Decoder BASE64 = Base64.getDecoder();
    private static final int BUFFER = 128 * 1024;

    private final PayloadFormats formats;
    private final ObjectMapper mapper = new ObjectMapper();
    private final EnvelopeLineScanner scanner = new EnvelopeLineScanner();
    /** Strings of the bytes seen last: a file repeats its topic, timestamp types and header keys on every line. */
    private final RepeatedStrings strings = new RepeatedStrings();
    /** The characters of a base64 string as bytes, for the decoder; grows to the longest payload read. */
    private byte[] ascii = new byte[4096];
    /** The line being read, counted from 1, for errors. */
    private long line;

    JsonLinesReader(PayloadFormats formats) {
        this.formats = formats;
    }

    @Override
    public void read(Path file, int partition, Consumer<ArchiveRecord> sink) throws IOException {
        lines(file, new LineReader() {
            @Override
            public void scanned(byte[] b) throws IOException {
                if (partition == ALL_PARTITIONS || scanner.partition == partition) {
                    sink.accept(envelope(b));
                }
            }

            @Override
            public void parse(JsonParser p) throws IOException {
                ArchiveRecord r = envelope(p);
                if (partition == ALL_PARTITIONS || r.getPartition() == partition) {
                    sink.accept(r);
                }
            }
        });
    }

    /**
     * Reads only each line's partition and offset: the other fields are skipped as the parser finds their ends,
     * payloads neither decoded nor copied (planning a restore, an audit and counting read files this way).
     */
    @Override
    public void offsets(Path file, int partition, LongConsumer sink) throws IOException {
        lines(file, new LineReader() {
            @Override
            public void scanned(byte[] b) {
                if (partition == ALL_PARTITIONS || scanner.partition == partition) {
                    sink.accept(scanner.offset);
                }
            }

            @Override
            public void parse(JsonParser p) throws IOException {
                int recordPartition = 0;
                long offset = 0;
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String field = p.currentName();
                    p.nextToken();
                    switch (field) {
                        case PARTITION -> recordPartition = p.getIntValue();
                        case OFFSET -> offset = p.getLongValue();
                        default -> p.skipChildren();
                    }
                }
                if (partition == ALL_PARTITIONS || recordPartition == partition) {
                    sink.accept(offset);
                }
            }
        });
    }

    @Override
    public long count(Path file) throws IOException {
        long[] n = {0};
        lines(file, new LineReader() {
            @Override
            public void scanned(byte[] b) {
                n[0]++;
            }

            @Override
            public void parse(JsonParser p) throws IOException {
                p.skipChildren();
                n[0]++;
            }
        });
        return n[0];
    }

    /** What reads one record: from the scanner's findings, or from a parser at the record's opening brace. */
    private interface LineReader {
        /** The line {@link #scanner} has just scanned, in {@code b}. */
        void scanned(byte[] b) throws IOException;

        /** A record of a line of another shape, from its opening brace to its closing one. */
        void parse(JsonParser p) throws IOException;
    }

    /**
     * Hands each line of {@code file} to {@code reader}, failing on a line that is not a JSON object. The buffer
     * holds at least one whole line (it grows for a longer one), so that the scanner and the parser see all of it.
     */
    private void lines(Path file, LineReader reader) throws IOException {
        try (InputStream raw = file.getFileSystem().open(file); InputStream in = decompressing(raw, file.getName())) {
            byte[] b = new byte[BUFFER];
            int from = 0;
            int limit = 0;
            boolean end = false;
            line = 1;
            while (from < limit || !end) {
                int next = from < limit ? scanner.scan(b, from, limit, end) : EnvelopeLineScanner.MORE;
                if (next == EnvelopeLineScanner.OTHER) {
                    next = lineEnd(b, from, limit, end);
                    if (next != EnvelopeLineScanner.MORE) {
                        parseLine(b, from, next, reader);
                    }
                } else if (next != EnvelopeLineScanner.MORE) {
                    reader.scanned(b);
                }
                if (next == EnvelopeLineScanner.MORE) {
                    if (from > 0) {
                        System.arraycopy(b, from, b, 0, limit - from);
                        limit -= from;
                        from = 0;
                    } else if (limit == b.length) {
                        b = Arrays.copyOf(b, b.length * 2);
                    }
                    int n = in.read(b, limit, b.length - limit);
                    if (n < 0) {
                        end = true;
                    } else {
                        limit += n;
                    }
                } else {
                    from = next;
                    line++;
                }
            }
        }
    }

    /** The index after the newline that ends the line at {@code from}, or {@link EnvelopeLineScanner#MORE}. */
    private static int lineEnd(byte[] b, int from, int limit, boolean end) {
        for (int i = from; i < limit; i++) {
            if (b[i] == '\n') {
                return i + 1;
            }
        }
        return end ? limit : EnvelopeLineScanner.MORE;
    }

    /** Reads a line of another shape with Jackson: each JSON object on it is a record; whitespace alone is none. */
    private void parseLine(byte[] b, int from, int to, LineReader reader) throws IOException {
        try (JsonParser p = mapper.createParser(b, from, to - from)) {
            for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
                if (t != JsonToken.START_OBJECT) {
                    throw new IOException("Not a JSON Lines archive file: line " + line + " is not a JSON object (" + t + ")");
                }
                reader.parse(p);
            }
        } catch (JsonProcessingException e) {
            throw new IOException("Not a JSON Lines archive file: line " + line + " is not JSON: " + e.getOriginalMessage(), e);
        }
    }

    private static InputStream decompressing(InputStream raw, String name) throws IOException {
        if (name.endsWith(".gz")) {
            return new GZIPInputStream(raw, 64 * 1024);
        }
        if (name.endsWith(".zst")) {
            return new ZstdInputStreamNoFinalizer(raw);
        }
        return raw;
    }

    /** The record of the line the scanner has just scanned in {@code b}. */
    private ArchiveRecord envelope(byte[] b) throws IOException {
        EnvelopeLineScanner s = scanner;
        int n = s.headers;
        String[] headerKeys = new String[n];
        byte[][] headerValues = new byte[n][];
        for (int i = 0; i < n; i++) {
            headerKeys[i] = strings.of(b, s.headerKeyFrom[i], s.headerKeyTo[i], i + 2);
            headerValues[i] = payload(b, s.headerValueFrom[i], s.headerValueTo[i], formats.header());
        }
        ArchiveRecord record = new ArchiveRecord(strings.of(b, s.topicFrom, s.topicTo, 0), s.partition, s.offset, s.timestamp,
                strings.of(b, s.timestampTypeFrom, s.timestampTypeTo, 1), payload(b, s.keyFrom, s.keyTo, formats.key()),
                payload(b, s.valueFrom, s.valueTo, formats.value()), headerKeys, headerValues);
        return s.reasonFrom < 0 ? record : new DeadLetter(record, new String(b, s.reasonFrom, s.reasonTo - s.reasonFrom, UTF_8));
    }

    /** The payload whose string's characters are {@code b[from, to)}, or null for {@code from} -1. */
    private byte[] payload(byte[] b, int from, int to, PayloadFormat format) throws IOException {
        if (from < 0) {
            return null;
        }
        return switch (format) {
            case STRING -> Arrays.copyOfRange(b, from, to);
            case JSON -> Arrays.copyOfRange(b, from - 1, to + 1); // a JSON string, its quotes included
            default -> base64(ByteBuffer.wrap(b, from, to - from));
        };
    }

    private ArchiveRecord envelope(JsonParser p) throws IOException {
        String topic = null;
        String timestampType = null;
        int partition = 0;
        long offset = 0;
        long timestamp = 0;
        byte[] key = null;
        byte[] value = null;
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
                case KEY -> key = payload(p, t, formats.key());
                case VALUE -> value = payload(p, t, formats.value());
                case HEADERS -> {
                    while (p.nextToken() == JsonToken.START_OBJECT) {
                        String headerKey = null;
                        byte[] headerValue = null;
                        while (p.nextToken() == JsonToken.FIELD_NAME) {
                            String name = p.currentName();
                            JsonToken ht = p.nextToken();
                            if (name.equals(HEADER_KEY)) {
                                headerKey = p.getText();
                            } else if (name.equals(HEADER_VALUE)) {
                                headerValue = payload(p, ht, formats.header());
                            } else {
                                p.skipChildren();
                            }
                        }
                        headerKeys.add(headerKey);
                        headerValues.add(headerValue);
                    }
                }
                case DEAD_LETTER_REASON -> deadLetterReason = p.getText();
                default -> p.skipChildren();
            }
        }
        ArchiveRecord record = new ArchiveRecord(topic, partition, offset, timestamp, timestampType, key, value,
                headerKeys.toArray(new String[0]), headerValues.toArray(new byte[0][]));
        return deadLetterReason == null ? record : new DeadLetter(record, deadLetterReason);
    }

    private byte[] payload(JsonParser p, JsonToken t, PayloadFormat format) throws IOException {
        if (t == JsonToken.VALUE_NULL) {
            return null;
        }
        switch (format) {
            case STRING:
                return p.getText().getBytes(UTF_8);
            case JSON:
                return mapper.writeValueAsBytes(p.readValueAsTree());
            default:
                return base64(p, t);
        }
    }

    /**
     * A base64 string of a line of another shape, from the parser's own characters (no String made), for the
     * JDK's decoder.
     */
    private byte[] base64(JsonParser p, JsonToken t) throws IOException {
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
            throw notBase64("a character outside base64's alphabet");
        }
        return base64(ByteBuffer.wrap(ascii, 0, length));
    }

    /**
     * A base64 string (what {@link JsonLinesWriter} writes with the JDK's encoder) decoded by the JDK's decoder,
     * which rejects any byte outside the alphabet (a non-ASCII character's bytes included).
     */
    private byte[] base64(ByteBuffer chars) throws IOException {
        try {
            ByteBuffer decoded = BASE64.decode(chars);
            byte[] array = decoded.array();
            return decoded.remaining() == array.length ? array : Arrays.copyOf(array, decoded.remaining());
        } catch (IllegalArgumentException e) {
            throw notBase64(e.getMessage());
        }
    }

    private IOException notBase64(String why) {
        return new IOException("Not base64 at line " + line + " of a JSON Lines archive file: " + why);
    }
}
