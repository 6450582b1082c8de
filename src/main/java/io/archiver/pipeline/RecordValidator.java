package io.archiver.pipeline;

import io.archiver.metrics.ArchiverMetric;
import io.archiver.config.ErrorPolicy;
import io.archiver.fs.IoThreads;
import io.archiver.kafka.LogDivergence;
import io.archiver.position.PositionRecord;
import io.archiver.position.PositionRecovery;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.DeadLetter;
import io.archiver.record.PayloadFormats;
import io.archiver.registry.RegistryUnavailableException;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.ThreadSafeSimpleCounter;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/**
 * Lets through every record that can be written in the configured payload formats and handles the others
 * as {@code errors.policy} says: fail the job, skip and count (the skip log gets its position and reason), or route to
 * the dead-letter output with the reason. Both go to the {@link #REJECTED} side output, so that an audit accounts for
 * every offset. Logs the position of each rejected record, never its payload.
 *
 * <p>Also the archive's guard against Kafka truncating its log below what the job archived ({@link PassedOffsets}, in
 * operator state): a record at an offset already passed on is never archived again, whatever it holds; one Kafka
 * wrote there after the truncation (another leader epoch) is handled by {@code errors.policy} too, so that it is kept
 * (dead letters) or counted (skip) while the archive keeps the record it held. Each partition's truncation is logged
 * when the offsets go back and when they are new again, naming the offsets, and counted. After a restore it asks Kafka
 * whether each log still holds the last record passed ({@link LogDivergence}), and at a start without state whether it
 * still holds the last record the archive took of each partition (its position records keep that record's leader
 * epoch): a truncation while the job was stopped, or while no job archived the partition, is named and counted too.
 */
public final class RecordValidator extends ProcessFunction<ArchiveRecord, ArchiveRecord> implements CheckpointedFunction {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(RecordValidator.class);

    /**
     * Side output of rejected records, each a {@link DeadLetter} with its reason: whole under {@link ErrorPolicy#DEAD_LETTER},
     * without payloads ({@link DeadLetter#skipped}) under {@link ErrorPolicy#SKIP}.
     */
    public static final OutputTag<ArchiveRecord> REJECTED =
            new OutputTag<>("dead-letters", TypeInformation.of(ArchiveRecord.class));

    /** How long a subtask asks Kafka at its start whether logs were truncated while the job was stopped. */
    private static final Duration DIVERGENCE_CHECK = Duration.ofMinutes(1);

    private final PayloadFormats formats;
    private final ErrorPolicy policy;
    /** Bootstrap servers and the source's client properties: to ask Kafka about truncations at the start. */
    private final Properties kafkaClient;
    /** The archive's positions, where the job resumes from them: at a start without state, the last record archived of each partition (null: not asked). */
    private final PositionRecovery archive;
    private transient PayloadValidator validator;
    private transient Counter skipped;
    private transient Counter deadLettered;
    private transient Counter readAgain;
    private transient Counter truncated;
    private transient PassedOffsets passed;
    private transient ListState<byte[]> passedState;
    private transient boolean restored;
    private transient Thread divergenceCheck;
    /** Set as the task closes: the check it interrupts then (a batch job that ended first) is not worth a line. */
    private transient volatile boolean closing;

    public RecordValidator(PayloadFormats formats, ErrorPolicy policy, Properties kafkaClient, PositionRecovery archive) {
        this.formats = formats;
        this.policy = policy;
        this.kafkaClient = kafkaClient;
        this.archive = archive;
    }

    @Override
    public void open(OpenContext openContext) {
        MetricGroup metrics = getRuntimeContext().getMetricGroup();
        validator = new PayloadValidator(formats, new RegistryLookupCounters(metrics));
        skipped = ArchiverMetric.RECORDS_SKIPPED.counter(metrics);
        deadLettered = ArchiverMetric.RECORDS_DEAD_LETTERED.counter(metrics);
        readAgain = ArchiverMetric.RECORDS_READ_AGAIN.counter(metrics);
        truncated = ArchiverMetric.KAFKA_TRUNCATED_RECORDS.counter(metrics, new ThreadSafeSimpleCounter());
        int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        int subtasks = getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
        if (restored) {
            Map<TopicPartition, LogDivergence.LastRead> lastPassed = passed.lastPassed(subtask, subtasks);
            checkLogsAtStart(() -> lastPassed, "the last record passed before the restore", "while the job was stopped");
        } else if (archive != null) {
            checkLogsAtStart(() -> lastArchived(subtask, subtasks), "the last record the archive took", "since the archive took those records");
        }
    }

    /** Of this subtask's share of the archive's partitions (by hash), the last record archived, where its leader epoch is known. */
    private Map<TopicPartition, LogDivergence.LastRead> lastArchived(int subtask, int subtasks) throws IOException {
        Map<TopicPartition, LogDivergence.LastRead> last = new HashMap<>();
        for (PositionRecord r : archive.read().all()) {
            if (r.lastLeaderEpoch() >= 0 && Math.floorMod(r.topicPartition().hashCode(), subtasks) == subtask) {
                last.put(r.topicPartition(), new LogDivergence.LastRead(r.nextOffset() - 1, r.lastLeaderEpoch()));
            }
        }
        return last;
    }

    /** What {@link #checkLogsAtStart} asks Kafka about: partitions and the last record of each the archive holds. */
    private interface LastRecords {
        Map<TopicPartition, LogDivergence.LastRead> get() throws IOException;
    }

    /**
     * Asks Kafka in the background whether the log of each partition (this subtask's share) still holds {@code which}
     * ({@link LogDivergence}). A log truncated while the job was stopped and grown past the job's position since is read
     * on from the position as if nothing happened: only this check tells. Logged and counted; the records Kafka wrote at
     * the lost offsets are not archived (the archive holds those offsets).
     */
    private void checkLogsAtStart(LastRecords lastRecords, String which, String when) {
        divergenceCheck = IoThreads.daemon("kafka-log-divergence").newThread(() -> {
            try {
                Map<TopicPartition, LogDivergence.LastRead> lastRead = lastRecords.get();
                if (lastRead.isEmpty()) {
                    return;
                }
                long start = System.nanoTime();
                LogDivergence.Result result = LogDivergence.find(kafkaClient, lastRead, DIVERGENCE_CHECK);
                LOG.info("Asked Kafka whether the logs of {} partitions still hold {}: {} truncated ({} ms)",
                        lastRead.size(), which, result.diverged().size(), (System.nanoTime() - start) / 1_000_000);
                result.diverged().forEach((tp, first) -> {
                    long last = lastRead.get(tp).offset();
                    if (first < 0 || first > last) {
                        return;
                    }
                    truncated.inc(last - first + 1);
                    LOG.warn("{}: Kafka truncated the partition's log {}: the archived offsets {}..{} (the last of leader epoch {}) "
                            + "are no longer in Kafka's log, which differs from offset {} on. The archive keeps them; the job resumes "
                            + "after offset {}, so records Kafka wrote at offsets {}..{} since are not archived: audit --deep lists "
                            + "them (see docs/operations.md, \"Kafka truncated its log\").", tp, when, first, last,
                            lastRead.get(tp).leaderEpoch(), first, last, first, last);
                });
                if (!result.unanswered().isEmpty()) {
                    LOG.info("Kafka did not say within {} s whether the logs of {} still hold {}", DIVERGENCE_CHECK.toSeconds(),
                            result.unanswered(), which);
                }
            } catch (IOException | RuntimeException e) {
                if (!closing) {
                    LOG.info("Could not check whether Kafka's logs still hold {}: {}", which, e.toString());
                }
            }
        });
        divergenceCheck.start();
    }

    @Override
    public void close() throws Exception {
        if (divergenceCheck != null) {
            closing = true;
            divergenceCheck.interrupt();
        }
        super.close();
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        passedState = context.getOperatorStateStore().getUnionListState(
                new ListStateDescriptor<>("passed-offsets", PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
        passed = new PassedOffsets(new TruncationLog());
        restored = context.isRestored();
        if (restored) {
            passed.restore(passedState.get());
        }
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        passedState.update(passed.snapshot(getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(),
                getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks()));
    }

    @Override
    public void processElement(ArchiveRecord record, Context ctx, Collector<ArchiveRecord> out) throws RegistryUnavailableException {
        PassedOffsets.Verdict verdict = passed.check(record.getTopic(), record.getPartition(), record.getOffset(), record.getLeaderEpoch());
        if (verdict != PassedOffsets.Verdict.NEW) {
            readAgain.inc();
            if (verdict == PassedOffsets.Verdict.OTHER_RECORD) {
                truncated.inc();
                reject(record, DeadLetter.KAFKA_TRUNCATED + ": offset " + record.getOffset() + " was archived from leader epoch "
                        + passed.passedEpoch(record.getTopic(), record.getPartition(), record.getOffset())
                        + ", Kafka now holds another record there (leader epoch " + record.getLeaderEpoch() + ")", ctx);
            }
            return;
        }
        String problem = validator.problem(record);
        if (problem == null) {
            out.collect(record);
            return;
        }
        reject(record, problem, ctx);
    }

    private void reject(ArchiveRecord record, String problem, Context ctx) {
        switch (policy) {
            case SKIP:
                skipped.inc();
                LOG.warn("Skipped record {}: {} (errors.policy=skip).", record, problem);
                ctx.output(REJECTED, DeadLetter.skipped(record, problem));
                break;
            case DEAD_LETTER:
                deadLettered.inc();
                LOG.warn("Dead-lettered record {}: {}.", record, problem);
                ctx.output(REJECTED, new DeadLetter(record, problem));
                break;
            default:
                throw new InvalidRecordException("Record " + record + " cannot be archived: " + problem + (problem.startsWith(DeadLetter.KAFKA_TRUNCATED)
                        ? ". The archive keeps the record it holds; set errors.policy to dead-letter to keep the records Kafka wrote at "
                                + "archived offsets too, or to skip to count them (docs/operations.md, \"Kafka truncated its log\")."
                        : ". Fix the record format option or set errors.policy to skip or dead-letter."));
        }
    }

    /** Logs each partition's truncation: where its offsets went back, and what was read again once they are new. */
    private static final class TruncationLog implements PassedOffsets.Listener {
        @Override
        public void readingAgain(TopicPartition partition, long offset, long lastPassed) {
            LOG.warn("{}: offset {} read again after offset {} was archived: Kafka truncated the partition's log (an unclean leader "
                    + "election?). The archive keeps what it holds; records Kafka wrote at archived offsets since are handled "
                    + "by errors.policy (see docs/operations.md, \"Kafka truncated its log\").", partition, offset, lastPassed);
        }

        @Override
        public void newAgain(TopicPartition partition, PassedOffsets.ReadAgain r) {
            LOG.warn("{}: offsets {}..{} read again, not archived again: {} the archived records, {} written by Kafka after the "
                    + "truncation (handled by errors.policy), {} not comparable (archived before this job's state began: "
                    + "audit --deep compares them). Archiving goes on after offset {}.", partition, r.first(), r.last(), r.same(),
                    r.other(), r.unknown(), r.last());
        }
    }

    /** A record that cannot be written under {@code errors.policy=fail}. */
    public static final class InvalidRecordException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        InvalidRecordException(String message) {
            super(message);
        }
    }
}
