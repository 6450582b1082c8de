package io.archiver.config;

import org.apache.flink.configuration.ConfigOption;

import java.util.List;
import java.util.stream.Stream;

/**
 * The catalog of the archiver's options, typed, with their defaults and descriptions, declared by area:
 * {@link JobOptions}, {@link SourceOptions}, {@link FencingOptions}, {@link RecordOptions}, {@link SinkOptions},
 * {@link CheckpointOptions}, {@link RestoreOptions}, and the options of each file format ({@link FormatAreas}: the
 * format plug-ins declare their own). The option table of
 * docs/configuration.md is generated from it ({@link OptionsDocumentation}), so the two cannot drift.
 *
 * <p>Two prefixes pass through unchanged: {@value SourceOptions#KAFKA_PROPERTIES_PREFIX} (any Kafka consumer
 * property, e.g. TLS or SASL settings) and {@value JobOptions#FLINK_PREFIX} (any Flink setting of the job, e.g.
 * {@code flink.s3.endpoint}).
 */
public final class ArchiverOptions {

    /** The classes that declare options, each one area, the file formats' included. */
    static final List<Class<?>> AREAS = Stream.concat(
            Stream.of(JobOptions.class, SourceOptions.class, FencingOptions.class, RecordOptions.class, SchemaRegistryOptions.class,
                    SinkOptions.class, TableOptions.class, CheckpointOptions.class, RestoreOptions.class, ErasureOptions.class),
            FormatAreas.all().stream().map(FormatArea::optionsClass)).toList();

    /** The options of the areas, the file formats' after {@link SinkOptions#SINK_PART_PREFIX}. */
    private static final List<ConfigOption<?>> ALL = Stream.of(
            Stream.<ConfigOption<?>>of(
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
                    SinkOptions.SINK_PART_PREFIX),
            FormatAreas.all().stream().flatMap(f -> f.options().stream()),
            Stream.<ConfigOption<?>>of(
                    SinkOptions.SINK_ROLL_MAX_PART_SIZE,
                    SinkOptions.SINK_ROLL_INACTIVITY,
                    SinkOptions.SINK_ROLL_INTERVAL,
                    SinkOptions.SINK_BUCKET_CHECK_INTERVAL,
                    SinkOptions.SINK_UPLOAD_THREADS,
                    SinkOptions.SINK_COMMIT_THREADS,
                    SinkOptions.SINK_ORPHANED_UPLOADS_ABORT_AFTER,
                    SinkOptions.SINK_S3_ENCRYPTION,
                    SinkOptions.SINK_S3_KMS_KEY_ID,
                    TableOptions.TABLE_FORMAT,
                    TableOptions.TABLE_CATALOG_TYPE,
                    TableOptions.TABLE_CATALOG_URI,
                    TableOptions.TABLE_CATALOG_WAREHOUSE,
                    TableOptions.TABLE_CATALOG_NAME,
                    TableOptions.TABLE_CATALOG_USER,
                    TableOptions.TABLE_CATALOG_PASSWORD,
                    TableOptions.TABLE_CATALOG_CREDENTIAL,
                    TableOptions.TABLE_CATALOG_TOKEN,
                    TableOptions.TABLE_NAMESPACE,
                    TableOptions.TABLE_NAME_PREFIX,
                    TableOptions.TABLE_CREATE,
                    TableOptions.TABLE_COMPACT_TARGET_FILE_SIZE,
                    TableOptions.TABLE_COMPACT_CLOSED_AFTER,
                    TableOptions.TABLE_EXPIRE_OLDER_THAN,
                    TableOptions.TABLE_EXPIRE_RETAIN_LAST,
                    CheckpointOptions.CHECKPOINT_INTERVAL,
                    CheckpointOptions.CHECKPOINT_TIMEOUT,
                    CheckpointOptions.CHECKPOINT_DIR,
                    CheckpointOptions.RESTART_STRATEGY,
                    CheckpointOptions.RESTART_ATTEMPTS,
                    CheckpointOptions.RESTART_DELAY,
                    RestoreOptions.RESTORE_CHECKPOINT_INTERVAL,
                    RestoreOptions.RESTORE_LEDGER_TOPIC,
                    ErasureOptions.ERASE_KEY_HASH_SECRET))
            .flatMap(options -> options).toList();

    private ArchiverOptions() {}

    /** All options, in documentation order. */
    public static List<ConfigOption<?>> all() {
        return ALL;
    }
}
