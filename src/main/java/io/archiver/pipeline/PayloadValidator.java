package io.archiver.pipeline;

import io.archiver.config.PayloadFormat;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;
import io.archiver.registry.RegisteredSchema;
import io.archiver.registry.RegistryPayloads;
import io.archiver.registry.RegistryLookups;
import io.archiver.registry.RegistryUnavailableException;
import io.archiver.registry.SchemaRegistryClient;
import io.archiver.registry.SchemaSource;
import io.archiver.registry.UndecodablePayload;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.io.JsonEOFException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Checks that a record can be written in the configured payload formats: {@code string} payloads must be
 * valid UTF-8, {@code json} payloads exactly one valid JSON value, {@code avro} payloads in the wire format with a
 * schema id the registry has and bytes that decode with it. Not thread-safe; one per task.
 */
public final class PayloadValidator {

    private final PayloadFormats formats;
    private final CharsetDecoder utf8 =
            StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT);
    private final JsonFactory json = new JsonFactory();
    private final RegistryPayloads payloads;

    public PayloadValidator(PayloadFormats formats) {
        this(formats, RegistryLookups.NONE);
    }

    /** With the registry of {@code formats}, this task's lookups told to {@code lookups}. */
    public PayloadValidator(PayloadFormats formats, RegistryLookups lookups) {
        this(formats, formats.decoded() ? SchemaRegistryClient.shared(formats.registry()).countedIn(lookups) : null);
    }

    /** With the schemas of {@code schemas} (the registry, or a fixed set in tests). */
    public PayloadValidator(PayloadFormats formats, SchemaSource schemas) {
        this.formats = formats;
        this.payloads = formats.decoded() ? new RegistryPayloads(schemas) : null;
    }

    /**
     * Why the record cannot be written, or null when it can.
     *
     * @throws RegistryUnavailableException if an {@code avro} payload's schema could not be fetched (not bad input)
     */
    public String problem(ArchiveRecord record) throws RegistryUnavailableException {
        if (formats.allBytes()) {
            return null;
        }
        String p = problem("key", record.getKey(), formats.key());
        if (p == null) {
            p = problem("value", record.getValue(), formats.value());
        }
        if (formats.header() == PayloadFormat.BYTES) {
            return p;
        }
        byte[][] values = record.getHeaderValues();
        for (int i = 0; p == null && i < values.length; i++) {
            p = problem("header '" + record.getHeaderKeys()[i] + "'", values[i], formats.header());
        }
        return p;
    }

    /** Where in the payload the parser stopped (a byte offset from 0), never the bytes themselves. */
    private static String position(JsonProcessingException e) {
        JsonLocation at = e.getLocation();
        return at == null || at.getByteOffset() < 0 ? "position unknown" : "near byte offset " + at.getByteOffset();
    }

    private static String kind(JsonProcessingException e) {
        String message = e.getOriginalMessage();
        if (message == null) {
            return "malformed";
        }
        if (message.startsWith("Unrecognized token")) {
            return "unrecognized token";
        }
        if (message.startsWith("Unexpected character")) {
            return "unexpected character";
        }
        if (message.startsWith("Invalid UTF-8")) {
            return "invalid UTF-8";
        }
        return "malformed";
    }

    private String problem(String what, byte[] bytes, PayloadFormat format) throws RegistryUnavailableException {
        if (bytes == null || format == PayloadFormat.BYTES) {
            return null;
        }
        if (format.decodedWithRegistry()) {
            try {
                RegisteredSchema writer = payloads.writerSchema(bytes);
                if (!format.accepts(writer.type())) {
                    return what + " has schema id " + writer.id() + ", an " + writer.type() + " schema, which format " + format.configName() + " does not decode";
                }
                payloads.check(bytes, writer);
                return null;
            } catch (UndecodablePayload e) {
                return what + " " + e.getMessage() + " (format " + format.configName() + ")";
            }
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
        } catch (JsonEOFException e) {
            return what + " is not valid JSON (format json): it ends inside a value, " + position(e);
        } catch (JsonProcessingException e) {
            // the parser's own message quotes the payload: only the kind of error and where it is
            return what + " is not valid JSON (format json): " + kind(e) + ", " + position(e);
        } catch (IOException e) {
            return what + " could not be read as JSON (" + e.getClass().getSimpleName() + ")";
        }
    }
}
