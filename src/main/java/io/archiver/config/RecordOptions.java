package io.archiver.config;

import org.apache.flink.configuration.ConfigOption;

import static org.apache.flink.configuration.ConfigOptions.key;

/** How payloads are stored and what happens to a record that cannot be: payload formats, the error policy, dead letters. Part of the option catalog {@link ArchiverOptions}. */
public final class RecordOptions {

    public static final ConfigOption<PayloadFormat> RECORD_KEY_FORMAT =
            key("record.key.format")
                    .enumType(PayloadFormat.class)
                    .defaultValue(PayloadFormat.BYTES)
                    .withDescription("How record keys are stored.");

    public static final ConfigOption<PayloadFormat> RECORD_VALUE_FORMAT =
            key("record.value.format")
                    .enumType(PayloadFormat.class)
                    .defaultValue(PayloadFormat.BYTES)
                    .withDescription("How record values are stored.");

    public static final ConfigOption<PayloadFormat> RECORD_HEADER_FORMAT =
            key("record.header.format")
                    .enumType(PayloadFormat.class)
                    .defaultValue(PayloadFormat.BYTES)
                    .withDescription("How header values are stored (header keys are always strings).");

    public static final ConfigOption<ErrorPolicy> ERRORS_POLICY =
            key("errors.policy")
                    .enumType(ErrorPolicy.class)
                    .defaultValue(ErrorPolicy.FAIL)
                    .withDescription(
                            "What happens to a record whose key, value or header is not valid in its configured format (invalid UTF-8 or JSON; a payload of a format decoded with the Schema Registry not in the wire format, with a schema id the registry does not have or will not give, or bytes that do not decode with its schema): fail stops the job; skip counts it and records its topic, partition, offset and reason, never its payload, in <sink.path>/_archiver/skipped; dead-letter writes it whole to errors.dead-letter.path. audit counts skipped and dead-lettered records apart from missing ones. The same goes for a record Kafka wrote at an offset the job had archived, after truncating its log (docs/operations.md, Kafka truncated its log). A registry that is down is not bad input: see schema-registry.retry.timeout.");

    public static final ConfigOption<String> ERRORS_DEAD_LETTER_PATH =
            key("errors.dead-letter.path")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Where errors.policy=dead-letter writes rejected records (JSON Lines, payloads as base64, each line with its dead_letter_reason). Default: <sink.path>/_dead-letter.");

    private RecordOptions() {}
}
