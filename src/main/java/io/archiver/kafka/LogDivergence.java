package io.archiver.kafka;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.LogTruncationException;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;

/**
 * Whether Kafka's log of a partition still holds the record read there last, asked as Kafka's consumer asks after a
 * leader change (KIP-320): with the offset after that record and the record's leader epoch, the partition's leader
 * answers where that epoch ends in its log now. An epoch that ends before the offset means the log was truncated and
 * differs from the offset it names on (an unclean leader election, a replica that lost its disk), even when the log has
 * grown past the offset again since. One short-lived consumer without a group; nothing is read or committed.
 */
public final class LogDivergence {

    /** The last record read of a partition: its offset and leader epoch. */
    public record LastRead(long offset, int leaderEpoch) {}

    /** What Kafka answered: the partitions whose log diverges, each with its first differing offset, and those it did not answer for. */
    public record Result(Map<TopicPartition, Long> diverged, Set<TopicPartition> unanswered) {}

    private LogDivergence() {}

    /**
     * Asks, within {@code timeout}, for each partition of {@code lastRead} (its records' leader epochs known) whether its
     * log still holds that record. {@code client}: bootstrap servers and the client properties (security settings too).
     */
    public static Result find(Properties client, Map<TopicPartition, LastRead> lastRead, Duration timeout) {
        Properties props = new Properties();
        props.putAll(client);
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        props.setProperty(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.setProperty(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none"); // a divergence is reported, not moved past
        props.setProperty(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "1");
        Map<TopicPartition, Long> diverged = new HashMap<>();
        Set<TopicPartition> unchecked = new LinkedHashSet<>(lastRead.keySet());
        long deadline = System.nanoTime() + timeout.toNanos();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            while (!unchecked.isEmpty()) {
                consumer.assign(unchecked);
                int before = unchecked.size();
                try {
                    // a position sought with an epoch is validated only once the consumer knows the partition's leader and
                    // its epoch (else it is taken as it is): asking for the log ends loads them
                    consumer.endOffsets(unchecked, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
                    unchecked.forEach(tp -> consumer.seek(tp, new OffsetAndMetadata(lastRead.get(tp).offset() + 1,
                            Optional.of(lastRead.get(tp).leaderEpoch()), "")));
                    for (Iterator<TopicPartition> i = unchecked.iterator(); i.hasNext(); ) {
                        // a position is given once the leader confirmed the epoch reaches it
                        consumer.position(i.next(), Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
                        i.remove();
                    }
                } catch (LogTruncationException e) {
                    e.divergentOffsets().forEach((tp, first) -> {
                        diverged.put(tp, first.offset());
                        unchecked.remove(tp);
                    });
                } catch (TimeoutException e) {
                    break;
                }
                if (unchecked.size() == before) {
                    break; // no answer changed anything: left unanswered
                }
            }
        }
        return new Result(diverged, unchecked);
    }
}
