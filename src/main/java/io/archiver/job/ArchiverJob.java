package io.archiver.job;

import io.archiver.archive.ArchiveRoot;
import io.archiver.config.ArchiverConfig;
import io.archiver.config.ErrorPolicy;
import io.archiver.fencing.ArchiveLease;
import io.archiver.pipeline.ArchivedOffsetFilter;
import io.archiver.position.PositionRecovery;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;
import io.archiver.sink.ArchiveSinkFactory;
import io.archiver.pipeline.RecordValidator;
import io.archiver.source.KafkaSourceFactory;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import static io.archiver.config.RecordOptions.ERRORS_POLICY;
import static io.archiver.config.SourceOptions.RESUME_FROM_ARCHIVE;

/**
 * The archiver's dataflow: Kafka source → archived-offset filter → record validator → archive sink (and, with
 * {@code errors.policy=dead-letter}, a dead-letter file sink; with {@code skip}, the skip log's file sink). Every operator has a stable uid: savepoints
 * map state to operators by uid, so these strings are part of the upgrade contract and must never change.
 */
public final class ArchiverJob {

    public static final String SOURCE_UID = "kafka-source";
    public static final String ARCHIVED_FILTER_UID = "archived-offset-filter";
    public static final String VALIDATOR_UID = "record-validator";
    public static final String SINK_UID = "archive-sink";
    public static final String DEAD_LETTER_SINK_UID = "dead-letter-sink";
    public static final String SKIP_LOG_SINK_UID = "skip-log-sink";

    private ArchiverJob() {}

    /** Adds the archiver's operators to {@code env}; the sink renews and checks {@code lease}. */
    public static void build(StreamExecutionEnvironment env, ArchiverConfig config, ArchiveLease lease) {
        DataStream<ArchiveRecord> records =
                env.fromSource(KafkaSourceFactory.create(config), WatermarkStrategy.noWatermarks(), "Kafka source")
                        .uid(SOURCE_UID)
                        .name("Kafka source");
        // the archive's positions, where the job resumes from them (the filter's, and the validator's check at the start)
        PositionRecovery archive = config.get(RESUME_FROM_ARCHIVE) ? new PositionRecovery(ArchiveRoot.of(config)) : null;
        if (archive != null) {
            records = records.filter(new ArchivedOffsetFilter(archive))
                    .uid(ARCHIVED_FILTER_UID)
                    .name("Skip archived offsets");
        }
        SingleOutputStreamOperator<ArchiveRecord> valid =
                records.process(new RecordValidator(PayloadFormats.of(config), config.get(ERRORS_POLICY), config.kafkaClientProperties(),
                        archive))
                        .uid(VALIDATOR_UID)
                        .name("Record validator");
        valid.sinkTo(ArchiveSinkFactory.archive(config, lease)).uid(SINK_UID).name("Archive sink");
        if (config.get(ERRORS_POLICY) == ErrorPolicy.DEAD_LETTER) {
            valid.getSideOutput(RecordValidator.REJECTED)
                    .sinkTo(ArchiveSinkFactory.deadLetter(config))
                    .uid(DEAD_LETTER_SINK_UID)
                    .name("Dead-letter sink");
        } else if (config.get(ERRORS_POLICY) == ErrorPolicy.SKIP) {
            valid.getSideOutput(RecordValidator.REJECTED)
                    .sinkTo(ArchiveSinkFactory.skipLog(config))
                    .uid(SKIP_LOG_SINK_UID)
                    .name("Skip log");
        }
    }
}
