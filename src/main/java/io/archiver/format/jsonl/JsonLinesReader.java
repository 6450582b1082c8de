package io.archiver.format.jsonl;

import io.archiver.config.PayloadFormat;
import io.archiver.format.FormatReader;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.DeadLetter;
import io.archiver.record.PayloadFormats;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import org.apache.flink.core.fs.Path;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.zip.GZIPInputStream;

import static io.archiver.record.EnvelopeFields.*;

/**
 * Reads JSON Lines files (uncompressed, gzip or zstd by suffix) with Jackson's streaming parser straight from the
 * bytes: no line strings and no tree per record (only a JSON payload is read as a tree, to write it back compact).
 * Payloads are decoded with the payload formats they were written with; a line of a dead-letter file reads as a
 * {@link DeadLetter}.
 */
final class JsonLinesReader implements FormatReader {

    private final PayloadFormats formats;
    private static final Base64.Decoder BASE64 = Base64.getDecoder();

    private final ObjectMapper mapper = new ObjectMapper();
    /** The characters of a base64 string as bytes, for the decoder; grows to the longest payload read. */
    private byte[] ascii = new byte[4096];

    JsonLinesReader(PayloadFormats formats) {
        this.formats = formats;
    }

    @Override
    public void read(Path file, int partition, Consumer<ArchiveRecord> sink) throws IOException {
        lines(file, p -> {
            ArchiveRecord r = envelope(p);
            if (partition == ALL_PARTITIONS || r.getPartition() == partition) {
                sink.accept(r);
            }
        });
    }

    /**
     * Reads only each line's partition and offset: the other fields are skipped as the parser finds their ends,
     * payloads neither decoded nor copied (planning a restore, an audit and counting read files this way).
     */
    @Override
    public void offsets(Path file, int partition, LongConsumer sink) throws IOException {
        lines(file, p -> {
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
        });
    }

    @Override
    public long count(Path file) throws IOException {
        long[] n = {0};
        lines(file, p -> {
            p.skipChildren();
            n[0]++;
        });
        return n[0];
    }

    /** What reads one line, from the parser at its opening brace to its closing one. */
    @FunctionalInterface
    private interface LineReader {
        void read(JsonParser p) throws IOException;
    }

    /** Hands each line of {@code file} to {@code line}, failing on a line that is not a JSON object. */
    private void lines(Path file, LineReader line) throws IOException {
        try (InputStream raw = file.getFileSystem().open(file); InputStream in = decompressing(raw, file.getName());
                JsonParser p = mapper.createParser(in)) {
            for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
                if (t != JsonToken.START_OBJECT) {
                    throw new IOException("Not a JSON Lines archive file: a line is not a JSON object (" + t + " at line "
                            + p.currentLocation().getLineNr() + ")");
                }
                line.read(p);
            }
        }
    }

    private static InputStream decompressing(InputStream raw, String name) throws IOException {
        if (name.endsWith(".gz")) {
            return new GZIPInputStream(raw, 64 * 1024);
        }
        if (name.endsWith(".zst")) {
            return new BufferedInputStream(new ZstdInputStreamNoFinalizer(raw), 64 * 1024);
        }
        return raw;
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
                return p.getText().getBytes(StandardCharsets.UTF_8);
            case JSON:
                return mapper.writeValueAsBytes(p.readValueAsTree());
            default:
                return base64(p, t);
        }
    }

    /**
     * A base64 string (what {@link JsonLinesWriter} writes with the JDK's encoder) decoded by the JDK's decoder from
     * the parser's own characters, no String made: reading a JSON Lines archive of 1 KiB values takes half the time
     * it took with the parser's own base64 loop, which was three quarters of it.
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
        try {
            if (any > 0x7f) {
                throw new IllegalArgumentException("a character outside base64's alphabet");
            }
            ByteBuffer decoded = BASE64.decode(ByteBuffer.wrap(ascii, 0, length));
            byte[] array = decoded.array();
            return decoded.remaining() == array.length ? array : Arrays.copyOf(array, decoded.remaining());
        } catch (IllegalArgumentException e) {
            throw new IOException("Not base64 at line " + p.currentLocation().getLineNr() + " of a JSON Lines archive file: " + e.getMessage());
        }
    }
}
