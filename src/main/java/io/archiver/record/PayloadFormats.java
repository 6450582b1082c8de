package io.archiver.record;

import io.archiver.config.ArchiverConfig;
import io.archiver.config.PayloadFormat;
import io.archiver.registry.SchemaRegistrySettings;

import java.io.Serializable;

import static io.archiver.config.RecordOptions.RECORD_HEADER_FORMAT;
import static io.archiver.config.RecordOptions.RECORD_KEY_FORMAT;
import static io.archiver.config.RecordOptions.RECORD_VALUE_FORMAT;

/** How keys, values and header values are stored: the part of the configuration writers and readers need. */
public final class PayloadFormats implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Everything stored as raw bytes: the default, which never rejects a record. */
    public static final PayloadFormats BYTES =
            new PayloadFormats(PayloadFormat.BYTES, PayloadFormat.BYTES, PayloadFormat.BYTES);

    private final PayloadFormat key;
    private final PayloadFormat value;
    private final PayloadFormat header;
    /** Where {@code avro} payloads find their schemas; null when no format needs the registry. */
    private final SchemaRegistrySettings registry;

    public PayloadFormats(PayloadFormat key, PayloadFormat value, PayloadFormat header) {
        this(key, value, header, null);
    }

    public PayloadFormats(PayloadFormat key, PayloadFormat value, PayloadFormat header, SchemaRegistrySettings registry) {
        this.key = key;
        this.value = value;
        this.header = header;
        this.registry = registry;
    }

    public static PayloadFormats of(ArchiverConfig config) {
        return new PayloadFormats(
                config.get(RECORD_KEY_FORMAT), config.get(RECORD_VALUE_FORMAT), config.get(RECORD_HEADER_FORMAT),
                SchemaRegistrySettings.of(config));
    }

    public PayloadFormat key() {
        return key;
    }

    public PayloadFormat value() {
        return value;
    }

    public PayloadFormat header() {
        return header;
    }

    /** The registry of {@code avro} payloads, or null. */
    public SchemaRegistrySettings registry() {
        return registry;
    }

    /** True when the key or the value is decoded with a schema from the registry. */
    public boolean decoded() {
        return key.decodedWithRegistry() || value.decodedWithRegistry();
    }

    /** True when every payload is stored as bytes, so no record can be rejected. */
    public boolean allBytes() {
        return key == PayloadFormat.BYTES && value == PayloadFormat.BYTES && header == PayloadFormat.BYTES;
    }
}
