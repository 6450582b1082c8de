package io.archiver.record;

/**
 * Field names of the archived envelope, shared by every format (Parquet columns, JSON Lines keys) and by
 * the readers, so writers and readers cannot disagree.
 */
public final class EnvelopeFields {

    public static final String TOPIC = "topic";
    public static final String PARTITION = "partition";
    public static final String OFFSET = "offset";
    public static final String TIMESTAMP = "timestamp";
    public static final String TIMESTAMP_TYPE = "timestamp_type";
    public static final String KEY = "key";
    public static final String VALUE = "value";
    public static final String HEADERS = "headers";
    /** Key of a header inside {@link #HEADERS}. */
    public static final String HEADER_KEY = "key";
    /** Value of a header inside {@link #HEADERS}. */
    public static final String HEADER_VALUE = "value";

    /**
     * The exact bytes (base64) of a {@code json} key that JSON Lines cannot embed as they are (a document spread over
     * lines or with whitespace around it, the document {@code null}, another encoding than UTF-8); the embedded
     * {@link #KEY} is then its compact form. {@link #VALUE_BYTES} for values, {@link #HEADER_VALUE_BYTES} in a header.
     */
    public static final String KEY_BYTES = "key_bytes";
    public static final String VALUE_BYTES = "value_bytes";
    public static final String HEADER_VALUE_BYTES = "value_bytes";

    /** The schema id of a key decoded with the registry ({@code record.key.format: avro}). */
    public static final String KEY_SCHEMA_ID = "key_schema_id";
    /** The decoded key: typed columns in Parquet, a JSON value in JSON Lines. */
    public static final String KEY_DECODED = "key_decoded";
    /** The schema id of a value decoded with the registry ({@code record.value.format: avro}). */
    public static final String VALUE_SCHEMA_ID = "value_schema_id";
    /** The decoded value: typed columns in Parquet, a JSON value in JSON Lines. */
    public static final String VALUE_DECODED = "value_decoded";

    /** Why a dead letter was rejected (JSON Lines files of {@code errors.dead-letter.path} only). */
    public static final String DEAD_LETTER_REASON = "dead_letter_reason";

    /** Version of the envelope schema, written into Parquet footers. */
    public static final String SCHEMA_VERSION = "1";

    private EnvelopeFields() {}
}
