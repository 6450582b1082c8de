package io.archiver.pipeline;

import io.archiver.metrics.ArchiverMetric;
import io.archiver.config.ErrorPolicy;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.DeadLetter;
import io.archiver.record.PayloadFormats;
import io.archiver.registry.RegistryUnavailableException;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets through every record that can be written in the configured payload formats and handles the others
 * as {@code errors.policy} says: fail the job, skip and count (the skip log gets its position and reason), or route to
 * the dead-letter output with the reason. Both go to the {@link #REJECTED} side output, so that an audit accounts for
 * every offset. Logs the position of each rejected record, never its payload.
 */
public final class RecordValidator extends ProcessFunction<ArchiveRecord, ArchiveRecord> {

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
    }

    @Override
    public void processElement(ArchiveRecord record, Context ctx, Collector<ArchiveRecord> out) throws RegistryUnavailableException {
        String problem = validator.problem(record);
        if (problem == null) {
            out.collect(record);
            return;
        }
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
                throw new InvalidRecordException(
                        "Record " + record + " cannot be archived: " + problem
                                + ". Fix the record format option or set errors.policy to skip or dead-letter.");
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
