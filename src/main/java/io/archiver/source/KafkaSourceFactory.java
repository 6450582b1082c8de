package io.archiver.source;

import io.archiver.archive.ArchiveRoot;
import io.archiver.config.ArchiverConfig;
import io.archiver.config.Mode;
import io.archiver.position.PositionRecovery;
import io.archiver.record.ArchiveRecord;

import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;
import org.apache.flink.connector.kafka.source.KafkaSourceOptions;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.IsolationLevel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Properties;

import static io.archiver.config.SourceOptions.KAFKA_BOOTSTRAP_SERVERS;
import static io.archiver.config.SourceOptions.KAFKA_GROUP_ID;
import static io.archiver.config.SourceOptions.KAFKA_PARTITION_DISCOVERY_INTERVAL;
import static io.archiver.config.SourceOptions.KAFKA_START;
import static io.archiver.config.JobOptions.MODE;
import static io.archiver.config.SourceOptions.RESUME_FROM_ARCHIVE;

/**
 * Builds the {@link KafkaSource} of the archiver from its configuration. The read position lives in
 * Flink's checkpoints; without them the job resumes from the archive's own position records. Offsets are
 * also committed to the consumer group on every completed checkpoint, for lag monitoring only.
 *
 * <p>The source reads {@code read_committed} unless configured otherwise: the archive holds what every
 * consumer of the topic sees, never the records of aborted transactions, and a bounded run stops at the last
 * stable offset, never inside an open transaction.
 */
public final class KafkaSourceFactory {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaSourceFactory.class);

    private KafkaSourceFactory() {}

    public static KafkaSource<ArchiveRecord> create(ArchiverConfig config) {
        KafkaSourceBuilder<ArchiveRecord> builder =
                KafkaSource.<ArchiveRecord>builder()
                        .setBootstrapServers(config.get(KAFKA_BOOTSTRAP_SERVERS))
                        .setGroupId(config.get(KAFKA_GROUP_ID))
                        .setDeserializer(new ArchiveRecordDeserializer())
                        .setStartingOffsets(startOffsets(config));
        if (config.topics().isEmpty()) {
            builder.setTopicPattern(config.topicPattern().orElseThrow());
        } else {
            builder.setTopics(config.topics());
        }
        Properties props = config.kafkaProperties();
        props.setProperty(KafkaSourceOptions.COMMIT_OFFSETS_ON_CHECKPOINT.key(), "true");
        props.setProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, config.isolationLevel().toString());
        if (config.isolationLevel() == IsolationLevel.READ_UNCOMMITTED) {
            LOG.warn("kafka.properties.isolation.level is read_uncommitted: the records of ABORTED transactions and of"
                    + " transactions still open are archived too, although no read_committed consumer of the topic ever"
                    + " sees them, and audit reports them as findings. Remove the setting to archive committed records only.");
        }
        if (config.get(MODE) == Mode.BATCH) {
            builder.setBounded(KafkaPositions.of(config.stop(), config.isolationLevel(), config.kafkaClientProperties()));
        } else {
            props.setProperty(
                    KafkaSourceOptions.PARTITION_DISCOVERY_INTERVAL_MS.key(),
                    String.valueOf(config.get(KAFKA_PARTITION_DISCOVERY_INTERVAL).toMillis()));
        }
        builder.setProperties(props);
        return builder.build();
    }

    /** {@code kafka.start}, or with {@code resume.from-archive} the archive's positions falling back to it. */
    private static OffsetsInitializer startOffsets(ArchiverConfig config) {
        OffsetsInitializer start = KafkaPositions.of(config.start(), config.isolationLevel(), config.kafkaClientProperties());
        if (!config.get(RESUME_FROM_ARCHIVE)) {
            return start;
        }
        return new ArchiveOffsetsInitializer(new PositionRecovery(ArchiveRoot.of(config)), start, config.get(KAFKA_START));
    }
}
