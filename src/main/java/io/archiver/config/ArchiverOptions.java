package io.archiver.config;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.MemorySize;

import java.time.Duration;
import java.util.List;

import static org.apache.flink.configuration.ConfigOptions.key;

/**
 * Every option of the archiver, typed, with its default and description. The option table of
 * docs/configuration.md is generated from this class ({@link OptionsDocumentation}), so the two cannot drift.
 *
 * <p>Two prefixes pass through unchanged: {@value #KAFKA_PROPERTIES_PREFIX} (any Kafka consumer property,
 * e.g. TLS or SASL settings) and {@value #FLINK_PREFIX} (any Flink setting of the job, e.g. {@code
 * flink.s3.endpoint}).
 */
public final class ArchiverOptions {

    /** Prefix of Kafka consumer properties handed to the source as they are. */
    public static final String KAFKA_PROPERTIES_PREFIX = "kafka.properties.";

    /** Prefix of Flink settings applied to the job (and to the local Flink when started with java). */
    public static final String FLINK_PREFIX = "flink.";

    public static final ConfigOption<String> JOB_NAME =
            key("job.name")
                    .stringType()
                    .defaultValue("kafka-s3-archiver")
                    .withDescription("Name of the Flink job.");

    public static final ConfigOption<Mode> MODE =
            key("mode")
                    .enumType(Mode.class)
                    .defaultValue(Mode.STREAMING)
                    .withDescription(
                            "streaming runs until stopped; batch archives up to kafka.stop, commits every file and exits.");

    public static final ConfigOption<Integer> PARALLELISM =
            key("parallelism")
                    .intType()
                    .defaultValue(-1)
                    .withDescription(
                            "Parallelism of the job; -1 keeps the default of the cluster (or the number of cores locally).");

    public static final ConfigOption<Duration> PREFLIGHT_TIMEOUT =
            key("preflight.timeout")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(30))
                    .withDescription(
                            "Before submitting, check within this time that Kafka is reachable, the topics exist and the archive root is writable; 0 skips the check.");

    // ---------------------------------------------------------------- source

    public static final ConfigOption<String> KAFKA_BOOTSTRAP_SERVERS =
            key("kafka.bootstrap.servers")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("Kafka bootstrap servers, host:port[,host:port...]. Required.");

    public static final ConfigOption<String> KAFKA_TOPICS =
            key("kafka.topics")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Comma-separated topics to archive. Exactly one of kafka.topics and kafka.topic-pattern is required.");

    public static final ConfigOption<String> KAFKA_TOPIC_PATTERN =
            key("kafka.topic-pattern")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Java regular expression of topics to archive; topics created later are picked up by partition discovery.");

    public static final ConfigOption<String> KAFKA_GROUP_ID =
            key("kafka.group.id")
                    .stringType()
                    .defaultValue("kafka-s3-archiver")
                    .withDescription(
                            "Consumer group. Offsets are committed to it on every completed checkpoint, for lag monitoring only: the position lives in Flink's checkpoints.");

    public static final ConfigOption<String> KAFKA_CONSUMER_GROUPS =
            key("kafka.consumer-groups")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Comma-separated consumer groups whose committed offsets of the archived topics are archived with the commits "
                                    + "(under _archiver/groups/), so that a restore can give each group its place in the restored topics.");

    public static final ConfigOption<String> KAFKA_CONSUMER_GROUP_PATTERN =
            key("kafka.consumer-group-pattern")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Java regular expression of consumer groups whose offsets are archived, as kafka.consumer-groups (both may be set).");

    public static final ConfigOption<Duration> KAFKA_CONSUMER_GROUPS_INTERVAL =
            key("kafka.consumer-groups.interval")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(1))
                    .withDescription(
                            "How often the consumer groups' offsets (and the archived topics' settings) are captured, from the job's start; only what moved is written.");

    public static final ConfigOption<String> KAFKA_START =
            key("kafka.start")
                    .stringType()
                    .defaultValue("earliest")
                    .withDescription(
                            "Where to start when the job has no checkpoint or savepoint: earliest | latest | committed | timestamp:<epoch-ms>. "
                                    + "committed uses the group's offsets and falls back to kafka.start.committed-fallback.");

    public static final ConfigOption<String> KAFKA_START_COMMITTED_FALLBACK =
            key("kafka.start.committed-fallback")
                    .stringType()
                    .defaultValue("earliest")
                    .withDescription(
                            "For kafka.start=committed: where partitions without a committed offset start: earliest | latest.");

    public static final ConfigOption<String> KAFKA_STOP =
            key("kafka.stop")
                    .stringType()
                    .defaultValue("latest")
                    .withDescription(
                            "Batch mode only: where to stop. latest (the last stable offset when the job starts: never inside an open transaction) | timestamp:<epoch-ms> | "
                                    + "offsets:<topic>:<partition>=<offset>[,...] (exclusive; partitions not listed stop at latest).");

    public static final ConfigOption<Boolean> RESUME_FROM_ARCHIVE =
            key("resume.from-archive")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "When the job starts without checkpoint or savepoint, resume every partition right after the last offset committed to the archive "
                                    + "(read from the position records under <sink.path>/_archiver/subtask-positions, one object per committer subtask); partitions with nothing archived start at kafka.start. "
                                    + "Records below a partition's archive position are also skipped when a partition is discovered later. "
                                    + "false: always start at kafka.start (the archive may then get duplicates).");

    public static final ConfigOption<Duration> FENCING_LEASE_TIMEOUT =
            key("fencing.lease-timeout")
                    .durationType()
                    .noDefaultValue()
                    .withDescription(
                            "One job per archive: a job holds the lease <sink.path>/_archiver/lease.json and renews it at checkpoints. "
                                    + "A job started on an archive whose lease another job renewed within this time waits for it to expire "
                                    + "and fails if it is renewed meanwhile; a lease not renewed for this long is taken over and its old holder "
                                    + "is fenced (it fails before committing anything more). Default: the larger of 60 s and 3 x checkpoint.interval; "
                                    + "if set, at least 2 x checkpoint.interval.");

    public static final ConfigOption<Duration> KAFKA_PARTITION_DISCOVERY_INTERVAL =
            key("kafka.partition-discovery.interval")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(1))
                    .withDescription(
                            "How often streaming mode looks for new partitions and topics; 0 turns discovery off.");

    // ---------------------------------------------------------------- records

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
                            "A record whose key, value or header is not valid in its configured format (invalid UTF-8 or JSON).");

    public static final ConfigOption<String> ERRORS_DEAD_LETTER_PATH =
            key("errors.dead-letter.path")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Where errors.policy=dead-letter writes rejected records (JSON Lines, payloads as base64). Default: <sink.path>/_dead-letter.");

    // ---------------------------------------------------------------- sink

    public static final ConfigOption<String> SINK_PATH =
            key("sink.path")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Archive root, any Flink filesystem URI: s3://bucket/prefix in production, file:///path allowed. Required.");

    public static final ConfigOption<ArchiveFormat> SINK_FORMAT =
            key("sink.format")
                    .enumType(ArchiveFormat.class)
                    .defaultValue(ArchiveFormat.PARQUET)
                    .withDescription("File format of the archive.");

    public static final ConfigOption<TimePartitioning> SINK_TIME_PARTITIONING =
            key("sink.time-partitioning")
                    .enumType(TimePartitioning.class)
                    .defaultValue(TimePartitioning.DAY)
                    .withDescription(
                            "Time folders under topic=<t>/partition=<p>/ (topic=<t>/ with sink.layout: per-topic), from the record timestamp in UTC.");

    public static final ConfigOption<SinkLayout> SINK_LAYOUT =
            key("sink.layout")
                    .enumType(SinkLayout.class)
                    .defaultValue(SinkLayout.PER_PARTITION)
                    .withDescription(
                            "per-partition: topic=<t>/partition=<p>/<time folders>/, every checkpoint writes a file per partition and time "
                                    + "folder that received records. per-topic: topic=<t>/<time folders>/, a file per sink subtask, topic and time "
                                    + "folder, whatever the number of partitions, its rows grouped by partition in offset order and its row groups "
                                    + "ending at partition boundaries (Parquet only). Choose per-topic for many partitions or short checkpoint "
                                    + "intervals. An archive may hold both (the layout may change at a restore or a start without state); "
                                    + "audit, repair and restore read both.");

    public static final ConfigOption<String> SINK_PART_PREFIX =
            key("sink.part-prefix")
                    .stringType()
                    .defaultValue("part")
                    .withDescription(
                            "Prefix of part file names; names are <prefix>-<uuid>-<subtask>-<counter><suffix>.");

    public static final ConfigOption<ParquetCompression> SINK_PARQUET_COMPRESSION =
            key("sink.parquet.compression")
                    .enumType(ParquetCompression.class)
                    .defaultValue(ParquetCompression.SNAPPY)
                    .withDescription("Compression of Parquet files.");

    public static final ConfigOption<Integer> SINK_PARQUET_ZSTD_LEVEL =
            key("sink.parquet.zstd-level")
                    .intType()
                    .defaultValue(1)
                    .withDescription(
                            "zstd level of Parquet files with zstd compression, 1 (fastest) to 19 (smallest). Raise it only "
                                    + "when storage matters more than the sink's CPU: higher levels cost task CPU for little size.");

    public static final ConfigOption<MemorySize> SINK_PARQUET_ROW_GROUP_SIZE =
            key("sink.parquet.row-group-size")
                    .memoryType()
                    .defaultValue(MemorySize.parse("32mb"))
                    .withDescription(
                            "Parquet row group size: the most a Parquet file buffers in memory before writing.");

    public static final ConfigOption<MemorySize> SINK_PARQUET_PAGE_SIZE =
            key("sink.parquet.page-size")
                    .memoryType()
                    .defaultValue(MemorySize.parse("1mb"))
                    .withDescription("Parquet page size.");

    public static final ConfigOption<MemorySize> SINK_PARQUET_BUFFER_MEMORY =
            key("sink.parquet.buffer-memory")
                    .memoryType()
                    .defaultValue(MemorySize.parse("64mb"))
                    .withDescription(
                            "Heap the open Parquet part files of one sink subtask may hold together, counting 40 KB per open file (about 35 KB "
                                    + "measured) plus its pages and row group not yet written out. When they hold more, the files holding at least their share are closed early "
                                    + "(smaller files, committed with the next checkpoint as usual), so buffered data is bounded by this setting, not by "
                                    + "the checkpoint interval or the input rate. Open files are one per partition and time folder written since the "
                                    + "last checkpoint; if they alone exceed it, a warning names the fixes. 0 removes the bound.");

    public static final ConfigOption<JsonCompression> SINK_JSONL_COMPRESSION =
            key("sink.jsonl.compression")
                    .enumType(JsonCompression.class)
                    .defaultValue(JsonCompression.NONE)
                    .withDescription(
                            "Compression of JSON Lines files: none (.jsonl), gzip (.jsonl.gz, readable everywhere) or zstd "
                                    + "(.jsonl.zst, read by zstd, DuckDB, Spark, Athena; far cheaper in CPU than gzip). Compressing runs "
                                    + "in the sink's task thread.");

    public static final ConfigOption<Integer> SINK_JSONL_GZIP_LEVEL =
            key("sink.jsonl.gzip-level")
                    .intType()
                    .defaultValue(6)
                    .withDescription(
                            "Deflate level of gzip JSON Lines, 1 (fastest) to 9 (smallest); 6 is gzip's own default. Lower it "
                                    + "when the sink's CPU limits the rate.");

    public static final ConfigOption<Integer> SINK_JSONL_ZSTD_LEVEL =
            key("sink.jsonl.zstd-level")
                    .intType()
                    .defaultValue(1)
                    .withDescription(
                            "zstd level of zstd JSON Lines, 1 (fastest) to 19 (smallest). Every open part file holds a "
                                    + "compression context outside the heap, larger at higher levels.");

    public static final ConfigOption<MemorySize> SINK_ROLL_MAX_PART_SIZE =
            key("sink.roll.max-part-size")
                    .memoryType()
                    .defaultValue(MemorySize.parse("128mb"))
                    .withDescription(
                            "A part file is closed once it has this many bytes (files always close on every checkpoint too).");

    public static final ConfigOption<Duration> SINK_ROLL_INACTIVITY =
            key("sink.roll.inactivity")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(1))
                    .withDescription(
                            "A part file that received no record for this long is closed before the next checkpoint.");

    public static final ConfigOption<Duration> SINK_ROLL_INTERVAL =
            key("sink.roll.interval")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(15))
                    .withDescription("A part file open for this long is closed before the next checkpoint.");

    public static final ConfigOption<Integer> SINK_UPLOAD_THREADS =
            key("sink.upload-threads")
                    .intType()
                    .defaultValue(8)
                    .withDescription(
                            "Part files of one sink subtask that start or finish their uploads at the same time, in the background: "
                                    + "the task thread goes on writing records, and at a checkpoint barrier it waits once for all "
                                    + "of its files instead of one file after another (many partitions: one file each per checkpoint).");

    public static final ConfigOption<Integer> SINK_COMMIT_THREADS =
            key("sink.commit-threads")
                    .intType()
                    .defaultValue(8)
                    .withDescription(
                            "S3 requests one committer runs at once when a checkpoint completes (position records, upload "
                                    + "completions). Raise it for many partitions and a distant S3 endpoint.");

    public static final ConfigOption<S3Encryption> SINK_S3_ENCRYPTION =
            key("sink.s3.encryption")
                    .enumType(S3Encryption.class)
                    .defaultValue(S3Encryption.DEFAULT)
                    .withDescription(
                            "Server-side encryption every object the job writes to S3 must get: archive files, position records, "
                                    + "the lease, dead letters and checkpoints in S3. default leaves it to the S3 file system's settings "
                                    + "and the bucket's default encryption; sse-s3 (keys managed by S3) or sse-kms (a KMS key, "
                                    + "sink.s3.kms-key-id). The command line applies it to the buckets the job writes; on a cluster the "
                                    + "S3 settings of every JobManager and TaskManager must say the same (s3.encryption.algorithm, "
                                    + "s3.encryption.key), and the job refuses to write where they do not.");

    public static final ConfigOption<String> SINK_S3_KMS_KEY_ID =
            key("sink.s3.kms-key-id")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "The KMS key (id, alias or ARN) of sink.s3.encryption=sse-kms; unset: the account's AWS managed "
                                    + "key for S3 (aws/s3).");

    public static final ConfigOption<Duration> SINK_BUCKET_CHECK_INTERVAL =
            key("sink.bucket-check-interval")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(10))
                    .withDescription("How often the time-based roll conditions are checked.");

    // ---------------------------------------------------------------- checkpoints and restarts

    public static final ConfigOption<Duration> CHECKPOINT_INTERVAL =
            key("checkpoint.interval")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(30))
                    .withDescription(
                            "Exactly-once checkpoint interval. Files become visible in the archive when the checkpoint that covers them completes.");

    public static final ConfigOption<Duration> CHECKPOINT_TIMEOUT =
            key("checkpoint.timeout")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(10))
                    .withDescription("A checkpoint that takes longer is aborted.");

    public static final ConfigOption<String> CHECKPOINT_DIR =
            key("checkpoint.dir")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Checkpoint storage URI (s3://... or file://...). Default: the cluster's execution.checkpointing.dir. "
                                    + "Checkpoints are retained on cancellation.");

    public static final ConfigOption<RestartStrategy> RESTART_STRATEGY =
            key("restart.strategy")
                    .enumType(RestartStrategy.class)
                    .defaultValue(RestartStrategy.EXPONENTIAL_DELAY)
                    .withDescription("How the job restarts after a failure.");

    public static final ConfigOption<Integer> RESTART_ATTEMPTS =
            key("restart.attempts")
                    .intType()
                    .defaultValue(10)
                    .withDescription("Restarts allowed by restart.strategy=fixed-delay.");

    public static final ConfigOption<Duration> RESTART_DELAY =
            key("restart.delay")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(5))
                    .withDescription("Delay before a restart (the initial delay for exponential-delay).");

    // ---------------------------------------------------------------- restore

    public static final ConfigOption<String> RESTORE_LEDGER_TOPIC =
            key("restore.ledger-topic")
                    .stringType()
                    .defaultValue("kafka-s3-archiver-restores")
                    .withDescription(
                            "Compacted topic of the cluster restored into where restore records, in the same Kafka transaction as the "
                                    + "records, what each run wrote; a restore started again goes on from it (created when missing).");

    private static final List<ConfigOption<?>> ALL =
            List.of(
                    JOB_NAME,
                    MODE,
                    PARALLELISM,
                    PREFLIGHT_TIMEOUT,
                    KAFKA_BOOTSTRAP_SERVERS,
                    KAFKA_TOPICS,
                    KAFKA_TOPIC_PATTERN,
                    KAFKA_GROUP_ID,
                    KAFKA_CONSUMER_GROUPS,
                    KAFKA_CONSUMER_GROUP_PATTERN,
                    KAFKA_CONSUMER_GROUPS_INTERVAL,
                    KAFKA_START,
                    KAFKA_START_COMMITTED_FALLBACK,
                    KAFKA_STOP,
                    RESUME_FROM_ARCHIVE,
                    FENCING_LEASE_TIMEOUT,
                    KAFKA_PARTITION_DISCOVERY_INTERVAL,
                    RECORD_KEY_FORMAT,
                    RECORD_VALUE_FORMAT,
                    RECORD_HEADER_FORMAT,
                    ERRORS_POLICY,
                    ERRORS_DEAD_LETTER_PATH,
                    SINK_PATH,
                    SINK_FORMAT,
                    SINK_TIME_PARTITIONING,
                    SINK_LAYOUT,
                    SINK_PART_PREFIX,
                    SINK_PARQUET_COMPRESSION,
                    SINK_PARQUET_ZSTD_LEVEL,
                    SINK_PARQUET_ROW_GROUP_SIZE,
                    SINK_PARQUET_PAGE_SIZE,
                    SINK_PARQUET_BUFFER_MEMORY,
                    SINK_JSONL_COMPRESSION,
                    SINK_JSONL_GZIP_LEVEL,
                    SINK_JSONL_ZSTD_LEVEL,
                    SINK_ROLL_MAX_PART_SIZE,
                    SINK_ROLL_INACTIVITY,
                    SINK_ROLL_INTERVAL,
                    SINK_BUCKET_CHECK_INTERVAL,
                    SINK_UPLOAD_THREADS,
                    SINK_COMMIT_THREADS,
                    SINK_S3_ENCRYPTION,
                    SINK_S3_KMS_KEY_ID,
                    CHECKPOINT_INTERVAL,
                    CHECKPOINT_TIMEOUT,
                    CHECKPOINT_DIR,
                    RESTART_STRATEGY,
                    RESTART_ATTEMPTS,
                    RESTART_DELAY,
                    RESTORE_LEDGER_TOPIC);

    private ArchiverOptions() {}

    /** All options, in documentation order. */
    public static List<ConfigOption<?>> all() {
        return ALL;
    }
}
