package io.archiver.testutils;

import io.archiver.record.ArchiveRecord;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A consumer group's side of a test: offsets committed as its consumer commits them, and what it reads on from them. */
public final class ConsumerGroups {

    private ConsumerGroups() {}

    /** Commits {@code offsets} for {@code group}, as its consumer does after processing the records before them. */
    public static void commit(String bootstrap, String group, Map<TopicPartition, Long> offsets) {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap, group)) {
            Map<TopicPartition, OffsetAndMetadata> commit = new TreeMap<>(
                    Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
            offsets.forEach((tp, o) -> commit.put(tp, new OffsetAndMetadata(o)));
            consumer.assign(commit.keySet());
            consumer.commitSync(commit, Duration.ofMinutes(1));
        }
    }

    /**
     * What {@code group} reads of {@code topic}'s {@code partitions} from its committed offsets (none is a failure:
     * auto.offset.reset=none), read_committed, per partition in order as "key|value", until it has {@code expected}
     * records and a further poll brings nothing.
     */
    public static Map<Integer, List<String>> readOn(String bootstrap, String group, String topic, int partitions, int expected)
            throws Exception {
        Map<Integer, List<String>> read = new TreeMap<>();
        List<TopicPartition> assigned = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            read.put(p, new ArrayList<>());
            assigned.add(new TopicPartition(topic, p));
        }
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap, group)) {
            consumer.assign(assigned);
            int[] count = {0};
            Await.until(expected + " records read by group " + group, Duration.ofSeconds(60), () -> {
                int polled = 0;
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    read.get(r.partition()).add(Arrays.toString(r.key()) + "|" + Arrays.toString(r.value()));
                    polled++;
                }
                count[0] += polled;
                return count[0] >= expected && polled == 0;
            });
        }
        return read;
    }

    /**
     * The records of {@code records} at or after {@code processed}'s offset of their partition, per partition in order as
     * {@link #readOn} gives them: what a group that processed the records before those offsets has left to read.
     */
    public static Map<Integer, List<String>> unprocessed(List<ArchiveRecord> records, Map<TopicPartition, Long> processed) {
        Map<Integer, List<String>> left = new TreeMap<>();
        for (ArchiveRecord r : records) {
            List<String> partition = left.computeIfAbsent(r.getPartition(), p -> new ArrayList<>());
            if (r.getOffset() >= processed.get(new TopicPartition(r.getTopic(), r.getPartition()))) {
                partition.add(Arrays.toString(r.getKey()) + "|" + Arrays.toString(r.getValue()));
            }
        }
        return left;
    }

    private static KafkaConsumer<byte[], byte[]> consumer(String bootstrap, String group) {
        return new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, group,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class));
    }
}
