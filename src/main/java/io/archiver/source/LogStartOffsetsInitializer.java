package io.archiver.source;

import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.common.TopicPartition;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * {@code kafka.start=earliest} without asking Kafka: offset 0 for each partition, which the consumer moves to the
 * partition's log start where the log starts later (retention, deleted records: its {@code auto.offset.reset} is
 * earliest). Asking Kafka, as the connector's own earliest does, needs the leader of every new partition at once: a
 * single partition Kafka serves no leader for would keep the job from starting, every other partition unarchived, until
 * the request timed out and the job failed over, again and again. From offset 0 the job starts, and its reader waits for
 * that partition alone.
 */
final class LogStartOffsetsInitializer implements OffsetsInitializer {

    private static final long serialVersionUID = 1L;

    @Override
    public Map<TopicPartition, Long> getPartitionOffsets(Collection<TopicPartition> partitions, PartitionOffsetsRetriever retriever) {
        Map<TopicPartition, Long> offsets = new HashMap<>();
        partitions.forEach(tp -> offsets.put(tp, 0L));
        return offsets;
    }

    @Override
    public OffsetResetStrategy getAutoOffsetResetStrategy() {
        return OffsetResetStrategy.EARLIEST;
    }
}
