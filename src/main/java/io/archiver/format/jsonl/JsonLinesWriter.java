package io.archiver.format.jsonl;

import io.archiver.config.PayloadFormat;
import io.archiver.format.ZstdMatchTable;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.DeadLetter;
import io.archiver.record.EnvelopeFields;
import io.archiver.record.PayloadFormats;
import io.archiver.registry.RegistryPayloads;
import io.archiver.registry.RegisteredSchema;
import io.archiver.registry.UndecodablePayload;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.io.SerializedString;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import com.google.protobuf.Message;
import com.github.luben.zstd.ZstdOutputStream;
import org.apache.flink.api.common.serialization.BulkWriter;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.zip.GZIPOutputStream;

import static io.archiver.record.EnvelopeFields.DEAD_LETTER_REASON;
import static io.archiver.record.EnvelopeFields.KEY_DECODED;
import static io.archiver.record.EnvelopeFields.KEY_SCHEMA_ID;
import static io.archiver.record.EnvelopeFields.VALUE_DECODED;
import static io.archiver.record.EnvelopeFields.VALUE_SCHEMA_ID;

/**
 * Writes records as JSON Lines, one compact JSON object per line:
 * {@code {"topic":..,"partition":..,"offset":..,"timestamp":..,"timestamp_type":..,"key":..,"value":..,
 * "headers":[{"key":..,"value":..}]}}. Bytes are base64 strings, strings are JSON strings, JSON payloads
 * are embedded as they are, byte for byte (one that cannot stand in a line so is embedded compactly and followed by
 * its exact bytes, {@code "value_bytes"}). An avro key or value is
 * kept as base64 bytes, and followed by {@code "value_schema_id"} and {@code "value_decoded"}, the value as JSON
 * ({@link AvroJson}, {@link ProtoJson}; a JSON Schema payload's document as it is). With gzip or zstd, one
 * gzip stream or zstd frame covers the whole file and is finished when the file closes. A {@link DeadLetter} ends
 * with its {@code "dead_letter_reason"}.
 */
final class JsonLinesWriter implements BulkWriter<ArchiveRecord> {

    private static final int GZIP_BUFFER = 64 * 1024;
    private static final Base64.Encoder BASE64 = Base64.getEncoder();

    private final JsonFactory json;
    private final PayloadFormats formats;
    /** Decodes the keys and values of formats decoded with the registry; null when none is. */
    private final RegistryPayloads payloads;
    /** The compressing stream over the part file, null for an uncompressed file. */
    private final OutputStream compressed;
    private final JsonGenerator out;
    private byte[] base64 = new byte[4096];
    /** Avro values written as JSON straight from their bytes, and the decoder over them, both reused. */
    private final AvroJson avroJson = new AvroJson();
    private BinaryDecoder decoder;
    private final LastString topic = new LastString();
    private final LastString timestampType = new LastString();
    private LastString[] headerKeys = new LastString[2];

    /** {@code level}: gzip's deflate level or zstd's level, unused for an uncompressed file. */
    JsonLinesWriter(JsonFactory json, OutputStream stream, PayloadFormats formats, RegistryPayloads payloads, JsonCompression compression, int level)
            throws IOException {
        this.json = json;
        this.formats = formats;
        this.payloads = payloads;
        this.compressed = compressing(new KeptOpen(stream), compression, level);
        this.out = json.createGenerator(this.compressed != null ? this.compressed : stream);
        this.out.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
        this.out.setRootValueSeparator(null);
    }

    @Override
    public void addElement(ArchiveRecord r) throws IOException {
        out.writeStartObject();
        out.writeFieldName(Names.TOPIC);
        out.writeString(topic.of(r.getTopic()));
        out.writeFieldName(Names.PARTITION);
        out.writeNumber(r.getPartition());
        out.writeFieldName(Names.OFFSET);
        out.writeNumber(r.getOffset());
        out.writeFieldName(Names.TIMESTAMP);
        out.writeNumber(r.getTimestamp());
        out.writeFieldName(Names.TIMESTAMP_TYPE);
        out.writeString(timestampType.of(r.getTimestampType()));
        writePayload(Names.KEY, Names.KEY_BYTES, r.getKey(), formats.key());
        writePayload(Names.VALUE, Names.VALUE_BYTES, r.getValue(), formats.value());
        out.writeFieldName(Names.HEADERS);
        out.writeStartArray();
        String[] keys = r.getHeaderKeys();
        byte[][] values = r.getHeaderValues();
        if (headerKeys.length < keys.length) {
            headerKeys = Arrays.copyOf(headerKeys, keys.length);
        }
        for (int i = 0; i < keys.length; i++) {
            if (headerKeys[i] == null) {
                headerKeys[i] = new LastString();
            }
            out.writeStartObject();
            out.writeFieldName(Names.HEADER_KEY);
            out.writeString(headerKeys[i].of(keys[i]));
            writePayload(Names.HEADER_VALUE, Names.HEADER_VALUE_BYTES, values[i], formats.header());
            out.writeEndObject();
        }
        out.writeEndArray();
        if (payloads != null) {
            writeDecoded(r, r.getKey(), formats.key(), KEY_SCHEMA_ID, KEY_DECODED);
            writeDecoded(r, r.getValue(), formats.value(), VALUE_SCHEMA_ID, VALUE_DECODED);
        }
        if (r instanceof DeadLetter dead) {
            out.writeStringField(DEAD_LETTER_REASON, dead.getReason());
        }
        out.writeEndObject();
        out.writeRaw('\n');
    }

    /**
     * The envelope's field names written in every line, encoded once: Jackson encodes a name given as a
     * {@code String} character by character, which profiling showed as the largest cost of a line after base64.
     */
    private static final class Names {
        static final SerializedString TOPIC = new SerializedString(EnvelopeFields.TOPIC);
        static final SerializedString PARTITION = new SerializedString(EnvelopeFields.PARTITION);
        static final SerializedString OFFSET = new SerializedString(EnvelopeFields.OFFSET);
        static final SerializedString TIMESTAMP = new SerializedString(EnvelopeFields.TIMESTAMP);
        static final SerializedString TIMESTAMP_TYPE = new SerializedString(EnvelopeFields.TIMESTAMP_TYPE);
        static final SerializedString KEY = new SerializedString(EnvelopeFields.KEY);
        static final SerializedString KEY_BYTES = new SerializedString(EnvelopeFields.KEY_BYTES);
        static final SerializedString VALUE = new SerializedString(EnvelopeFields.VALUE);
        static final SerializedString VALUE_BYTES = new SerializedString(EnvelopeFields.VALUE_BYTES);
        static final SerializedString HEADERS = new SerializedString(EnvelopeFields.HEADERS);
        static final SerializedString HEADER_KEY = new SerializedString(EnvelopeFields.HEADER_KEY);
        static final SerializedString HEADER_VALUE = new SerializedString(EnvelopeFields.HEADER_VALUE);
        static final SerializedString HEADER_VALUE_BYTES = new SerializedString(EnvelopeFields.HEADER_VALUE_BYTES);
    }

    /**
     * The last string seen in one place of a line (the topic, the timestamp type, the n-th header key), kept encoded:
     * the lines of a file repeat them, and comparing a string with the last one costs less than encoding it.
     */
    private static final class LastString {
        private String last;
        private SerializedString encoded;

        SerializedString of(String s) {
            if (s != last && !s.equals(last)) {
                last = s;
                encoded = new SerializedString(s);
            }
            return encoded;
        }
    }

    /** The payload's schema id and its value decoded with that schema, after the raw bytes; nothing for a null payload. */
    private void writeDecoded(ArchiveRecord r, byte[] payload, PayloadFormat format, String idField, String decodedField) throws IOException {
        if (payload == null || !format.decodedWithRegistry()) {
            return;
        }
        try {
            RegisteredSchema writer = payloads.writerSchema(payload);
            out.writeNumberField(idField, writer.id());
            out.writeFieldName(decodedField);
            if (writer.json() != null) {
                // the document itself, on one line
                try (JsonParser parser = json.createParser(payload, RegistryPayloads.HEADER, payload.length - RegistryPayloads.HEADER)) {
                    parser.nextToken();
                    out.copyCurrentStructure(parser);
                }
            } else if (writer.proto() != null) {
                ProtoJson.write(out, (Message) payloads.decode(payload, writer, writer));
            } else {
                decoder = DecoderFactory.get().binaryDecoder(payload, RegistryPayloads.HEADER, payload.length - RegistryPayloads.HEADER, decoder);
                avroJson.write(out, writer.avro(), decoder);
            }
        } catch (UndecodablePayload e) {
            throw e.afterValidation(r.toString());
        }
    }

    /**
     * A payload as its format says. A {@code json} document is embedded as it is, byte for byte, where a line can hold
     * it so; otherwise (see {@link #embeddable}) in its compact form, followed by its exact bytes in {@code bytesField}.
     */
    private void writePayload(SerializedString field, SerializedString bytesField, byte[] bytes, PayloadFormat format) throws IOException {
        out.writeFieldName(field);
        if (bytes == null) {
            out.writeNull();
            return;
        }
        switch (format) {
            case STRING:
                out.writeUTF8String(bytes, 0, bytes.length);
                break;
            case JSON:
                try (JsonParser parser = json.createParser(bytes)) {
                    parser.nextToken();
                    if (embeddable(bytes)) {
                        // read through first: bytes that are not one JSON document fail here, as copying them does
                        parser.skipChildren();
                        if (parser.nextToken() != null) {
                            throw new JsonParseException(parser, "More than one JSON value in a json payload");
                        }
                        out.writeRawValue(new SerializedString(new String(bytes, StandardCharsets.UTF_8)));
                    } else {
                        out.copyCurrentStructure(parser);
                        out.writeFieldName(bytesField);
                        writeBase64(bytes);
                    }
                }
                break;
            default:
                writeBase64(bytes);
        }
    }

    /**
     * True when a JSON document can stand in a line as it is: no control characters (line breaks and tabs between its
     * tokens; the zero bytes of encodings other than UTF-8), no whitespace around it (a reader finds the document's
     * own bytes), not starting with a byte order mark, and not the document {@code null}, which would read as no
     * payload.
     */
    static boolean embeddable(byte[] json) {
        int last = json.length - 1;
        if (last < 0 || json[0] <= ' ' || json[last] <= ' ' || (last == 3 && json[0] == 'n')) {
            return false; // bytes are signed: a first byte of 0x80 or more (a byte order mark) is below ' ' too
        }
        for (byte b : json) {
            if (b >= 0 && b < ' ') {
                return false;
            }
        }
        return true;
    }

    /**
     * Base64 with the JDK's encoder, written as an unescaped string (base64 needs no escaping): about twice
     * as fast as the generator's own base64 loop, which profiling showed as the largest cost of JSON Lines.
     */
    private void writeBase64(byte[] bytes) throws IOException {
        int length = 4 * ((bytes.length + 2) / 3);
        if (base64.length < length) {
            base64 = new byte[Math.max(length, base64.length * 2)];
        }
        int n = BASE64.encode(bytes, base64);
        out.writeRawUTF8String(base64, 0, n);
    }

    private static OutputStream compressing(KeptOpen file, JsonCompression compression, int level) throws IOException {
        switch (compression) {
            case GZIP:
                return new LeveledGzipStream(file, level);
            case ZSTD:
                return new ZstdFile(file, level);
            default:
                return null;
        }
    }

    /**
     * The part file as the compressing stream sees it: closing the compressing stream ends the gzip stream or zstd
     * frame, but the part file itself belongs to the file sink, which closes it when it commits the file. A
     * discarded file takes nothing more.
     */
    private static final class KeptOpen extends FilterOutputStream {
        private volatile boolean discarded;

        KeptOpen(OutputStream file) {
            super(file);
        }

        void discard() {
            discarded = true;
        }

        @Override
        public void write(int b) throws IOException {
            if (!discarded) {
                out.write(b);
            }
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            if (!discarded) {
                out.write(b, off, len);
            }
        }

        @Override
        public void flush() throws IOException {
            if (!discarded) {
                out.flush();
            }
        }

        @Override
        public void close() throws IOException {
            flush();
        }
    }

    /**
     * zstd over a part file, with level 1's match table as {@link ZstdMatchTable} sizes it and a 128 KiB window: a JSON Lines record's repetitions are within the records
     * before it, and the window sets most of the context's memory (measured per open file, 2 MB written: 0.54 MB
     * at level 1 against 0.91 MB with zstd's window for that level, 1.23 against 2.99 MB at level 3, for the
     * same size of JSON orders). The context lives outside the heap until the stream is closed, which
     * {@link #finish()} does; a file the sink abandons instead (a failover or cancellation disposes open part
     * files without finishing them) has its context freed when the writer is collected, by zstd-jni's finalizer,
     * and that late close writes nothing to the abandoned file.
     */
    private static final class ZstdFile extends ZstdOutputStream {
        private static final int WINDOW_LOG = 17;
        private final KeptOpen file;

        ZstdFile(KeptOpen file, int level) throws IOException {
            super(file, level);
            this.file = file;
            setWindowLog(WINDOW_LOG);
            if (ZstdMatchTable.hashLog(level) > 0) {
                setHashLog(ZstdMatchTable.hashLog(level));
            }
        }

        @Override
        @SuppressWarnings({"deprecation", "removal"})
        protected void finalize() throws Throwable {
            file.discard();
            super.finalize();
        }
    }

    /** A gzip stream at a chosen deflate level (the JDK's always uses the default level). */
    private static final class LeveledGzipStream extends GZIPOutputStream {
        LeveledGzipStream(OutputStream out, int level) throws IOException {
            super(out, GZIP_BUFFER);
            def.setLevel(level);
        }
    }

    @Override
    public void flush() throws IOException {
        out.flush();
    }

    @Override
    public void finish() throws IOException {
        out.flush();
        if (compressed != null) {
            compressed.close();
        }
    }
}
