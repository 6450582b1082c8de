package io.archiver.config;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.util.TimeUtils;

import java.time.Duration;
import java.util.List;

import static org.apache.flink.configuration.ConfigOptions.key;

/** Where and how files are written: the archive root, format, layout, time folders, rolling, uploads, commits, encryption. Part of the option catalog {@link ArchiverOptions}. */
public final class SinkOptions {

    public static final ConfigOption<String> SINK_PATH =
            key("sink.path")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Archive root, any Flink filesystem URI: s3://bucket/prefix in production, file:///path allowed. Required.");

    public static final ConfigOption<String> SINK_FORMAT =
            key("sink.format")
                    .stringType()
                    .defaultValue("parquet")
                    .withDescription("File format of the archive: one of the file formats of this build, each with its own "
                            + "sink.<format>.* options below.");

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

    public static final ConfigOption<Duration> SINK_ORPHANED_UPLOADS_ABORT_AFTER =
            key("sink.orphaned-uploads.abort-after")
                    .durationType()
                    .defaultValue(Duration.ofHours(24))
                    .withDescription(
                            "The running job aborts multipart uploads under sink.path started this long ago and neither completed nor "
                                    + "aborted: parts of files that kills and failovers left, paid for and never visible (a commit cut short, "
                                    + "which a start without state completes, is kept). Longer than checkpoint.timeout plus two checkpoint "
                                    + "intervals; 0 turns the sweep off (a bucket lifecycle rule or `cleanup --apply` bounds them then).");

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

    /** Fails unless {@code sink.path} is a file system URI. */
    static void validatePath(ArchiverConfig config) {
        String sink = config.sinkPath();
        if (!sink.matches("[a-zA-Z][a-zA-Z0-9+.-]*://.+")) {
            throw new ConfigException(
                    "Invalid value '" + sink + "' for '" + SINK_PATH.key()
                            + "': write a filesystem URI such as s3://bucket/prefix or file:///data/archive.");
        }
    }

    /** Fails on sizes, intervals and thread counts out of range, an encryption that cannot apply, a layout the format cannot write, a part prefix that is no file name. */
    static void validate(ArchiverConfig config) {
        String sink = config.sinkPath();
        config.positive(SINK_ROLL_MAX_PART_SIZE, config.get(SINK_ROLL_MAX_PART_SIZE).getBytes() > 0, "a positive size");
        config.positive(SINK_ROLL_INACTIVITY, !config.get(SINK_ROLL_INACTIVITY).isNegative(), "a positive duration");
        config.positive(SINK_ROLL_INTERVAL, !config.get(SINK_ROLL_INTERVAL).isNegative(), "a positive duration");
        config.positive(SINK_BUCKET_CHECK_INTERVAL, config.get(SINK_BUCKET_CHECK_INTERVAL).toMillis() > 0, "a positive duration");
        config.positive(SINK_UPLOAD_THREADS, config.get(SINK_UPLOAD_THREADS) >= 1 && config.get(SINK_UPLOAD_THREADS) <= 64, "1 to 64");
        config.positive(SINK_COMMIT_THREADS, config.get(SINK_COMMIT_THREADS) >= 1 && config.get(SINK_COMMIT_THREADS) <= 64, "1 to 64");
        if (config.getOptional(SINK_S3_KMS_KEY_ID).isPresent() && config.get(SINK_S3_ENCRYPTION) != S3Encryption.SSE_KMS) {
            throw new ConfigException(
                    "'" + SINK_S3_KMS_KEY_ID.key() + "' applies only to '" + SINK_S3_ENCRYPTION.key() + ": sse-kms' (it is "
                            + config.get(SINK_S3_ENCRYPTION) + "); set that too, or remove the key id.");
        }
        if (config.get(SINK_S3_ENCRYPTION) != S3Encryption.DEFAULT && !sink.startsWith("s3")) {
            throw new ConfigException(
                    "'" + SINK_S3_ENCRYPTION.key() + ": " + config.get(SINK_S3_ENCRYPTION) + "' applies to an archive in S3, and '"
                            + SINK_PATH.key() + "' is " + sink + "; remove it or archive to s3://bucket/prefix.");
        }
        FormatArea format = FormatAreas.named(config.get(SINK_FORMAT)).orElseThrow(() -> new ConfigException(
                "Invalid value '" + config.get(SINK_FORMAT) + "' for '" + SINK_FORMAT.key() + "': accepted " + FormatAreas.names() + "."));
        if (!format.writes(config.get(SINK_LAYOUT))) {
            List<String> writers = FormatAreas.all().stream().filter(f -> f.writes(config.get(SINK_LAYOUT))).map(FormatArea::name).toList();
            throw new ConfigException(
                    "'" + SINK_LAYOUT.key() + ": " + config.get(SINK_LAYOUT) + "' needs '" + SINK_FORMAT.key() + ": " + String.join("' or '", writers)
                            + "' (its files hold many partitions, found by the row groups' statistics, which " + format.name()
                            + " files have not); set " + SINK_FORMAT.key() + ": " + writers.get(0) + ", or " + SINK_LAYOUT.key()
                            + ": per-partition.");
        }
        FormatAreas.all().forEach(f -> f.validate(config)); // a value a format cannot use is wrong whichever format is chosen
        config.positive(SINK_ORPHANED_UPLOADS_ABORT_AFTER, !config.get(SINK_ORPHANED_UPLOADS_ABORT_AFTER).isNegative(), "a positive duration, or 0");
        Duration abortAfter = config.get(SINK_ORPHANED_UPLOADS_ABORT_AFTER);
        Duration inProgress = config.get(CheckpointOptions.CHECKPOINT_TIMEOUT).plus(config.get(CheckpointOptions.CHECKPOINT_INTERVAL).multipliedBy(2));
        if (!abortAfter.isZero() && abortAfter.compareTo(inProgress) <= 0) {
            throw new ConfigException(
                    "'" + SINK_ORPHANED_UPLOADS_ABORT_AFTER.key() + ": " + TimeUtils.formatWithHighestUnit(abortAfter) + "' would abort "
                            + "uploads of files the job is still writing: set it longer than " + CheckpointOptions.CHECKPOINT_TIMEOUT.key()
                            + " plus two " + CheckpointOptions.CHECKPOINT_INTERVAL.key() + " (" + TimeUtils.formatWithHighestUnit(inProgress)
                            + "), or 0 to turn the sweep off.");
        }
        if (!config.get(SINK_PART_PREFIX).matches("[a-zA-Z0-9._-]+")) {
            throw new ConfigException(
                    "Invalid value '" + config.get(SINK_PART_PREFIX) + "' for '" + SINK_PART_PREFIX.key()
                            + "': use letters, digits, '.', '_' and '-' only.");
        }
    }

    private SinkOptions() {}
}
