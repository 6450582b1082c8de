package io.archiver.format.jsonl;

import io.archiver.format.FormatReader;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import org.apache.flink.core.fs.Path;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.zip.GZIPInputStream;

import static io.archiver.record.EnvelopeFields.*;

/**
 * Reads JSON Lines files (uncompressed, gzip or zstd by suffix) line by line from a buffer of their bytes. A line
 * as {@link JsonLinesWriter} writes it is read by {@link EnvelopeLineScanner} where it lies (base64 payloads decoded
 * straight from the buffer, repeated topics and header keys reusing their strings); any other line with Jackson's
 * streaming parser. {@link EnvelopeLineDecoder} makes the records of both.
 */
final class JsonLinesReader implements FormatReader {

    private static final int BUFFER = 128 * 1024;

    private final JsonFactory json = new JsonFactory();
    private final EnvelopeLineScanner scanner;
    private final EnvelopeLineDecoder decoder;
    /** The line being read, counted from 1, for errors. */
    private long line;

    JsonLinesReader(PayloadFormats formats) {
        this.scanner = new EnvelopeLineScanner(formats);
        this.decoder = new EnvelopeLineDecoder(formats);
    }

    @Override
    public void read(Path file, int partition, Consumer<ArchiveRecord> sink) throws IOException {
        lines(file, new LineReader() {
            @Override
            public void scanned(byte[] b) throws IOException {
                if (partition == ALL_PARTITIONS || scanner.partition == partition) {
                    sink.accept(decoder.record(scanner, b, line));
                }
            }

            @Override
            public void parse(JsonParser p, byte[] b, int from) throws IOException {
                ArchiveRecord r = decoder.record(p, b, from, line);
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
            public void parse(JsonParser p, byte[] b, int from) throws IOException {
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
            public void parse(JsonParser p, byte[] b, int from) throws IOException {
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

        /** A record of a line of another shape, from its opening brace to its closing one; {@code p} parses {@code b} from {@code from}. */
        void parse(JsonParser p, byte[] b, int from) throws IOException;
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
        try (JsonParser p = json.createParser(b, from, to - from)) {
            for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
                if (t != JsonToken.START_OBJECT) {
                    throw new IOException("Not a JSON Lines archive file: line " + line + " is not a JSON object (" + t + ")");
                }
                reader.parse(p, b, from);
            }
        } catch (JsonProcessingException e) {
            throw new IOException("Not a JSON Lines archive file: line " + line + " is not JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** {@code raw}, the bytes of a file named {@code name}, decompressed as its suffix says. */
    static InputStream decompressing(InputStream raw, String name) throws IOException {
        if (name.endsWith(".gz")) {
            return new GZIPInputStream(raw, 64 * 1024);
        }
        if (name.endsWith(".zst")) {
            return new ZstdInputStreamNoFinalizer(raw);
        }
        return raw;
    }
}
