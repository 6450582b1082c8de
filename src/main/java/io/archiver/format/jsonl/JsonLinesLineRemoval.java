package io.archiver.format.jsonl;

import io.archiver.record.EnvelopeFields;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.Path;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Map;
import java.util.Set;
import java.util.zip.GZIPOutputStream;

/**
 * Writes a JSON Lines file of the archive anew without some of its records: each line is one record (as
 * {@link JsonLinesWriter} writes them); a kept line is copied byte for byte, a line whose partition and offset are to
 * go is left out. The file's compression (by its name) is kept.
 */
final class JsonLinesLineRemoval {

    private static final JsonFactory JSON = new JsonFactory();

    private JsonLinesLineRemoval() {}

    static long copyWithout(Path file, FSDataOutputStream target, Map<Integer, Set<Long>> drop) throws IOException {
        long dropped = 0;
        long lineNumber = 0;
        try (InputStream raw = file.getFileSystem().open(file);
                InputStream in = new BufferedInputStream(JsonLinesReader.decompressing(raw, file.getName()), 64 * 1024);
                OutputStream out = compressing(new KeptOpen(target), file.getName())) {
            ByteArrayOutputStream line = new ByteArrayOutputStream(4096);
            int b;
            boolean end = false;
            while (!end) {
                b = in.read();
                if (b >= 0 && b != '\n') {
                    line.write(b);
                    continue;
                }
                end = b < 0;
                if (line.size() > 0 || !end) {
                    lineNumber++;
                    byte[] bytes = line.toByteArray();
                    if (dropped(bytes, lineNumber, drop)) {
                        dropped++;
                    } else {
                        out.write(bytes);
                        if (!end) {
                            out.write('\n');
                        }
                    }
                }
                line.reset();
            }
        }
        return dropped;
    }

    /** Whether the record on {@code line} is one to leave out; a blank line is kept. */
    private static boolean dropped(byte[] line, long number, Map<Integer, Set<Long>> drop) throws IOException {
        try (JsonParser p = JSON.createParser(line)) {
            JsonToken first = p.nextToken();
            if (first == null) {
                return false;
            }
            if (first != JsonToken.START_OBJECT) {
                throw new IOException("Not a JSON Lines archive file: line " + number + " is not a JSON object");
            }
            int partition = -1;
            long offset = -1;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                p.nextToken();
                switch (field) {
                    case EnvelopeFields.PARTITION -> partition = p.getIntValue();
                    case EnvelopeFields.OFFSET -> offset = p.getLongValue();
                    default -> p.skipChildren();
                }
            }
            if (p.nextToken() != null) {
                throw new IOException("Line " + number + " holds more than one record: not a file the archiver wrote");
            }
            return drop.getOrDefault(partition, Set.of()).contains(offset);
        }
    }

    private static OutputStream compressing(OutputStream out, String name) throws IOException {
        if (name.endsWith(".gz")) {
            return new GZIPOutputStream(out, 64 * 1024);
        }
        if (name.endsWith(".zst")) {
            return new ZstdOutputStreamNoFinalizer(out);
        }
        return out;
    }

    /** The target as the compressing stream sees it: closing it ends the compressed stream, the target stays open. */
    private static final class KeptOpen extends FilterOutputStream {
        KeptOpen(OutputStream out) {
            super(out);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
        }

        @Override
        public void close() throws IOException {
            flush();
        }
    }
}
