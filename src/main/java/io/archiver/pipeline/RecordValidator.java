package io.archiver.pipeline;

import io.archiver.metrics.ArchiverMetric;
import io.archiver.config.ErrorPolicy;
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
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * when the offsets go back and when they are new again, naming the offsets, and counted.
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

    private final PayloadFormats formats;
    private final ErrorPolicy policy;
    private transient PayloadValidator validator;
    private transient Counter skipped;
    private transient Counter deadLettered;
    private transient Counter readAgain;
    private transient Counter truncated;
    private transient PassedOffsets passed;
    private transient ListState<byte[]> passedState;

    public RecordValidator(PayloadFormats formats, ErrorPolicy policy) {
        this.formats = formats;
        this.policy = policy;
    }

    @Override
    public void open(OpenContext openContext) {
        MetricGroup metrics = getRuntimeContext().getMetricGroup();
        validator = new PayloadValidator(formats, new RegistryLookupCounters(metrics));
        skipped = ArchiverMetric.RECORDS_SKIPPED.counter(metrics);
        deadLettered = ArchiverMetric.RECORDS_DEAD_LETTERED.counter(metrics);
        readAgain = ArchiverMetric.RECORDS_READ_AGAIN.counter(metrics);
        truncated = ArchiverMetric.KAFKA_TRUNCATED_RECORDS.counter(metrics);
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        passedState = context.getOperatorStateStore().getUnionListState(
                new ListStateDescriptor<>("passed-offsets", PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
        passed = new PassedOffsets(new TruncationLog());
        if (context.isRestored()) {
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
