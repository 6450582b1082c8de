package io.archiver.audit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Asks Kafka what the audit needs: log start and end offsets and the group's committed offsets of every
 * partition, and which offsets of a hole in the archive really hold records (compaction, transaction
 * markers and aborted records leave offsets without records, which are not gaps).
 */
public final class KafkaInspector implements AutoCloseable {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final Admin admin;
    private final KafkaConsumer<byte[], byte[]> consumer;

    public KafkaInspector(Properties clientProperties) {
        Properties admin = new Properties();
        admin.putAll(clientProperties);
        this.admin = Admin.create(admin);
        Properties consumer = new Properties();
        consumer.putAll(clientProperties);
        consumer.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        consumer.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        consumer.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        consumer.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        consumer.remove(ConsumerConfig.GROUP_ID_CONFIG);
        this.consumer = new KafkaConsumer<>(consumer);
    }

    /** Every partition of {@code topics}. */
    public List<TopicPartition> partitions(Collection<String> topics) throws Exception {
        return admin.describeTopics(topics).allTopicNames().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).values().stream()
                .flatMap(d -> d.partitions().stream().map(p -> new TopicPartition(d.name(), p.partition())))
                .collect(Collectors.toList());
    }

    /** Topics matching a pattern (internal topics excluded). */
    public List<String> topicsMatching(java.util.regex.Pattern pattern) throws Exception {
        return admin.listTopics().names().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).stream()
                .filter(t -> pattern.matcher(t).matches())
                .sorted()
                .collect(Collectors.toList());
    }

    public Map<TopicPartition, KafkaPartitionState> state(Collection<TopicPartition> partitions, String groupId)
            throws Exception {
        Map<TopicPartition, Long> start = offsets(partitions, OffsetSpec.earliest());
        Map<TopicPartition, Long> end = offsets(partitions, OffsetSpec.latest());
        Map<TopicPartition, OffsetAndMetadata> group =
                admin.listConsumerGroupOffsets(groupId).partitionsToOffsetAndMetadata().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        Map<TopicPartition, KafkaPartitionState> out = new HashMap<>();
        for (TopicPartition tp : partitions) {
            OffsetAndMetadata committed = group.get(tp);
            out.put(tp, new KafkaPartitionState(start.get(tp), end.get(tp), committed == null ? -1 : committed.offset()));
        }
        return out;
    }

    private Map<TopicPartition, Long> offsets(Collection<TopicPartition> partitions, OffsetSpec spec) throws Exception {
        Map<TopicPartition, ListOffsetsResultInfo> result =
                admin.listOffsets(partitions.stream().collect(Collectors.toMap(Function.identity(), tp -> spec)))
                        .all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        return result.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
    }

    /** Offsets in {@code [from, to)} of {@code tp} that hold a (committed) record. */
    public List<Long> recordsIn(TopicPartition tp, long from, long to) {
        consumer.assign(List.of(tp));
        consumer.seek(tp, from);
        List<Long> found = new java.util.ArrayList<>();
        Instant deadline = Instant.now().plus(TIMEOUT);
        while (consumer.position(tp) < to && Instant.now().isBefore(deadline)) {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                if (r.offset() >= to) {
                    return found;
                }
                found.add(r.offset());
            }
        }
        if (consumer.position(tp) < to) {
            throw new IllegalStateException("Could not read " + tp + " [" + from + ", " + to + ") within " + TIMEOUT.toSeconds() + " s");
        }
        return found;
    }

    @Override
    public void close() {
        consumer.close();
        admin.close();
    }
}
