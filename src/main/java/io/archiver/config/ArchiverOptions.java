package io.archiver.config;

import org.apache.flink.configuration.ConfigOption;

import java.util.List;

/**
 * The catalog of the archiver's options, typed, with their defaults and descriptions, declared by area:
 * {@link JobOptions}, {@link SourceOptions}, {@link FencingOptions}, {@link RecordOptions}, {@link SinkOptions},
 * {@link FormatOptions}, {@link CheckpointOptions}, {@link RestoreOptions}. The option table of
 * docs/configuration.md is generated from it ({@link OptionsDocumentation}), so the two cannot drift.
 *
 * <p>Two prefixes pass through unchanged: {@value SourceOptions#KAFKA_PROPERTIES_PREFIX} (any Kafka consumer
 * property, e.g. TLS or SASL settings) and {@value JobOptions#FLINK_PREFIX} (any Flink setting of the job, e.g.
 * {@code flink.s3.endpoint}).
 */
public final class ArchiverOptions {

    /** The classes that declare options, each one area. */
    static final List<Class<?>> AREAS = List.of(
            JobOptions.class, SourceOptions.class, FencingOptions.class, RecordOptions.class, SchemaRegistryOptions.class, SinkOptions.class,
            FormatOptions.class, CheckpointOptions.class, RestoreOptions.class);

    private static final List<ConfigOption<?>> ALL =
            List.of(
                    JobOptions.JOB_NAME,
                    JobOptions.MODE,
                    JobOptions.PARALLELISM,
                    JobOptions.PREFLIGHT_TIMEOUT,
                    SourceOptions.KAFKA_BOOTSTRAP_SERVERS,
                    SourceOptions.KAFKA_TOPICS,
                    SourceOptions.KAFKA_TOPIC_PATTERN,
                    SourceOptions.KAFKA_GROUP_ID,
                    SourceOptions.KAFKA_CONSUMER_GROUPS,
                    SourceOptions.KAFKA_CONSUMER_GROUP_PATTERN,
                    SourceOptions.KAFKA_CONSUMER_GROUPS_INTERVAL,
                    SourceOptions.KAFKA_START,
                    SourceOptions.KAFKA_START_COMMITTED_FALLBACK,
                    SourceOptions.KAFKA_STOP,
                    SourceOptions.RESUME_FROM_ARCHIVE,
                    FencingOptions.FENCING_LEASE_TIMEOUT,
                    SourceOptions.KAFKA_PARTITION_DISCOVERY_INTERVAL,
                    RecordOptions.RECORD_KEY_FORMAT,
                    RecordOptions.RECORD_VALUE_FORMAT,
                    RecordOptions.RECORD_HEADER_FORMAT,
                    RecordOptions.ERRORS_POLICY,
                    RecordOptions.ERRORS_DEAD_LETTER_PATH,
                    SchemaRegistryOptions.SCHEMA_REGISTRY_URL,
                    SchemaRegistryOptions.SCHEMA_REGISTRY_USERNAME,
                    SchemaRegistryOptions.SCHEMA_REGISTRY_PASSWORD,
                    SchemaRegistryOptions.SCHEMA_REGISTRY_BEARER_TOKEN,
                    SchemaRegistryOptions.SCHEMA_REGISTRY_TRUSTSTORE,
                    SchemaRegistryOptions.SCHEMA_REGISTRY_TRUSTSTORE_PASSWORD,
                    SchemaRegistryOptions.SCHEMA_REGISTRY_KEYSTORE,
                    SchemaRegistryOptions.SCHEMA_REGISTRY_KEYSTORE_PASSWORD,
                    SchemaRegistryOptions.SCHEMA_REGISTRY_CACHE_SIZE,
                    SchemaRegistryOptions.SCHEMA_REGISTRY_REQUEST_TIMEOUT,
                    SchemaRegistryOptions.SCHEMA_REGISTRY_RETRY_TIMEOUT,
                    SinkOptions.SINK_PATH,
                    SinkOptions.SINK_FORMAT,
                    SinkOptions.SINK_TIME_PARTITIONING,
                    SinkOptions.SINK_LAYOUT,
                    SinkOptions.SINK_PART_PREFIX,
                    FormatOptions.SINK_PARQUET_COMPRESSION,
                    FormatOptions.SINK_PARQUET_ZSTD_LEVEL,
                    FormatOptions.SINK_PARQUET_ROW_GROUP_SIZE,
                    FormatOptions.SINK_PARQUET_PAGE_SIZE,
                    FormatOptions.SINK_PARQUET_BUFFER_MEMORY,
                    FormatOptions.SINK_PARQUET_DECODED_PAYLOAD_BYTES,
                    FormatOptions.SINK_JSONL_COMPRESSION,
                    FormatOptions.SINK_JSONL_GZIP_LEVEL,
                    FormatOptions.SINK_JSONL_ZSTD_LEVEL,
                    SinkOptions.SINK_ROLL_MAX_PART_SIZE,
                    SinkOptions.SINK_ROLL_INACTIVITY,
                    SinkOptions.SINK_ROLL_INTERVAL,
                    SinkOptions.SINK_BUCKET_CHECK_INTERVAL,
                    SinkOptions.SINK_UPLOAD_THREADS,
                    SinkOptions.SINK_COMMIT_THREADS,
                    SinkOptions.SINK_ORPHANED_UPLOADS_ABORT_AFTER,
                    SinkOptions.SINK_S3_ENCRYPTION,
                    SinkOptions.SINK_S3_KMS_KEY_ID,
                    CheckpointOptions.CHECKPOINT_INTERVAL,
                    CheckpointOptions.CHECKPOINT_TIMEOUT,
                    CheckpointOptions.CHECKPOINT_DIR,
                    CheckpointOptions.RESTART_STRATEGY,
                    CheckpointOptions.RESTART_ATTEMPTS,
                    CheckpointOptions.RESTART_DELAY,
                    RestoreOptions.RESTORE_CHECKPOINT_INTERVAL,
                    RestoreOptions.RESTORE_LEDGER_TOPIC);

    private ArchiverOptions() {}

    /** All options, in documentation order. */
    public static List<ConfigOption<?>> all() {
        return ALL;
    }
}
