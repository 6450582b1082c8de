package io.archiver.metrics;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.SimpleCounter;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * Every metric the archiver registers, with the operator that registers it and what it means: the one place their
 * names are written. Operators register them through {@link #counter} and {@link #gauge}; docs/design.md's metric
 * table is {@link #markdownTable()} (held to it by a test), and the dashboard's and alert rules' queries are checked
 * against these names.
 */
public enum ArchiverMetric {

    ARCHIVED_FILES("archivedFiles", Where.COMMITTER, Kind.COUNTER, "files the job committed"),
    ARCHIVED_BYTES("archivedBytes", Where.COMMITTER, Kind.COUNTER, "bytes of the files the job committed"),
    ARCHIVED_RECORDS("archivedRecords", Where.COMMITTER, Kind.COUNTER, "records of the files the job committed"),
    LAST_COMMIT_DURATION_MS("lastCommitDurationMs", Where.COMMITTER, Kind.GAUGE,
            "duration of the last commit (positions object, completing the uploads, positions object again)"),
    LAST_COMMIT_TIMESTAMP("lastCommitTimestamp", Where.COMMITTER, Kind.GAUGE,
            "when the last commit ended (epoch ms, 0 before the first): its age says how long nothing became visible"),
    LAST_ARCHIVED_OFFSET("lastArchivedOffset", Where.COMMITTER_PARTITION, Kind.GAUGE, "the last offset of the partition committed to the archive"),
    ARCHIVE_LAG("archiveLag", Where.COMMITTER_PARTITION, Kind.GAUGE,
            "offsets from the first committed record not archived yet to the last stable offset (asked after each commit, in the "
                    + "background); 0 when the partition is archived up to its last committed record, even behind trailing "
                    + "transaction markers or aborted records"),
    ORPHANED_UPLOADS_ABORTED("orphanedUploadsAborted", Where.FIRST_COMMITTER, Kind.COUNTER,
            "incomplete multipart uploads under the archive older than `sink.orphaned-uploads.abort-after` that the job aborted "
                    + "([cleanup](audit.md#cleanup))"),
    RECORDS_SKIPPED_AS_ARCHIVED("recordsSkippedAsArchived", Where.FILTER, Kind.COUNTER, "records dropped because the archive already holds them"),
    RECORDS_SKIPPED("recordsSkipped", Where.VALIDATOR, Kind.COUNTER, "records `errors.policy: skip` skipped (and recorded in the skip log)"),
    RECORDS_DEAD_LETTERED("recordsDeadLettered", Where.VALIDATOR, Kind.COUNTER, "records `errors.policy: dead-letter` sent to the dead-letter place"),
    RECORDS_READ_AGAIN("recordsReadAgain", Where.VALIDATOR, Kind.COUNTER,
            "records at offsets the job had already passed on, read again after Kafka truncated its log: never archived again "
                    + "([truncation](operations.md#kafka-truncated-its-log))"),
    KAFKA_TRUNCATED_RECORDS("kafkaTruncatedRecords", Where.VALIDATOR, Kind.COUNTER,
            "of those, records Kafka wrote at an archived offset after truncating its log (another leader epoch than the archived "
                    + "record's): handled by `errors.policy`, the archived record kept; and after a restore, archived offsets Kafka "
                    + "truncated from its log while the job was stopped"),
    REGISTRY_CACHE_HITS("registryCacheHits", Where.VALIDATOR, Kind.COUNTER,
            "lookups of records' schema ids this task's JVM had cached (0 unless a `record.*.format` is decoded through the registry)"),
    REGISTRY_REQUESTS("registryRequests", Where.VALIDATOR, Kind.COUNTER,
            "lookups of records' schema ids this task asked the registry for (each once, however many retries it took)"),
    REGISTRY_ERRORS("registryErrors", Where.VALIDATOR, Kind.COUNTER,
            "lookups of this task that failed: the registry did not answer within `schema-registry.retry.timeout`, or has no such "
                    + "schema, or one that cannot be used"),
        PART_FILES_BUFFERED_BYTES("partFilesBufferedBytes", Where.WRITER, Kind.GAUGE, "heap held by the subtask's open part files"),
    PART_FILES_CLOSED_FOR_MEMORY("partFilesClosedForMemory", Where.WRITER, Kind.GAUGE,
            "part files closed early to keep within `sink.parquet.buffer-memory`"),
    LEASE_TAKEN_OVER_AFTER_EXPIRY("leaseTakenOverAfterExpiry", Where.WRITER, Kind.GAUGE,
            "1 when the run took the archive over from a job whose lease expired (that job had not ended)"),
    TABLE_APPENDED_FILES("tableAppendedFiles", Where.TABLE_COMMITTER, Kind.COUNTER,
            "files appended to the topics' Iceberg tables (`table.format: iceberg`), caught-up files included"),
    TABLE_LAST_SNAPSHOT_TIMESTAMP("tableLastSnapshotTimestamp", Where.TABLE_COMMITTER, Kind.GAUGE,
            "when the table committer last committed a snapshot (epoch ms, 0 before the first): older than "
                    + "`lastCommitTimestamp` by more than a checkpoint interval, the tables lag the archive"),
    LAST_WRITE_TIMESTAMP("lastWriteTimestamp", Where.WRITER, Kind.GAUGE,
            "when a record was last written into a part file (epoch ms, 0 before the first; read at the first write after each "
                    + "checkpoint and every 256 writes, never later than the last write): later than `lastCommitTimestamp`, records "
                    + "wait to become visible; earlier, everything read is archived (an idle job)");

    /** Where a metric is registered. */
    public enum Where {
        WRITER("archive sink writer"),
        COMMITTER("archive sink committer"),
        COMMITTER_PARTITION("archive sink committer, per partition: `topic.<t>.partition.<p>.<name>`, labels `topic` and `partition` in Prometheus"),
        FIRST_COMMITTER("first archive sink committer subtask"),
        TABLE_COMMITTER("table committer (Flink's global committer: one subtask)"),
        FILTER("archived-offset filter"),
        VALIDATOR("record validator");

        private final String description;

        Where(String description) {
            this.description = description;
        }
    }

    /** Counters only go up; gauges are read when reported. */
    public enum Kind {
        COUNTER,
        GAUGE
    }

    private final String metricName;
    private final Where where;
    private final Kind kind;
    private final String description;

    ArchiverMetric(String metricName, Where where, Kind kind, String description) {
        this.metricName = metricName;
        this.where = where;
        this.kind = kind;
        this.description = description;
    }

    /** The name Flink reports it under (Prometheus: {@code flink_taskmanager_job_task_operator_<name>}). */
    public String metricName() {
        return metricName;
    }

    public Where where() {
        return where;
    }

    public Kind kind() {
        return kind;
    }

    /** Registers this counter in {@code group}. */
    public Counter counter(MetricGroup group) {
        return counter(group, new SimpleCounter());
    }

    /** Registers this counter in {@code group} as {@code counter} (a thread-safe one where threads besides the task's count). */
    public Counter counter(MetricGroup group, Counter counter) {
        if (kind != Kind.COUNTER) {
            throw new IllegalStateException(metricName + " is a " + kind);
        }
        return group.counter(metricName, counter);
    }

    /** Registers this gauge in {@code group}. */
    public <T> Gauge<T> gauge(MetricGroup group, Gauge<T> gauge) {
        if (kind != Kind.GAUGE) {
            throw new IllegalStateException(metricName + " is a " + kind);
        }
        return group.gauge(metricName, gauge);
    }

    /** The table of docs/design.md: every metric, where it is registered, its kind and meaning. */
    public static String markdownTable() {
        return "| metric | registered by | kind | meaning |\n|---|---|---|---|\n" + Arrays.stream(values())
                .map(m -> "| `" + m.metricName + "` | " + m.where.description + " | " + m.kind.name().toLowerCase(java.util.Locale.ROOT)
                        + " | " + m.description + " |")
                .collect(Collectors.joining("\n")) + "\n";
    }
}
