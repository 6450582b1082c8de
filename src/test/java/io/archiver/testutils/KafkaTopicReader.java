package io.archiver.testutils;

import io.archiver.record.ArchiveRecord;
import io.archiver.source.ArchiveRecordDeserializer;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;

/**
 * Reads a whole topic back from Kafka as a {@code read_committed} consumer does, up to the last stable
 * offset: the ground truth an archive is compared with (committed records only; aborted records, transaction
 * markers and compacted records leave holes).
 */
public final class KafkaTopicReader {

    private KafkaTopicReader() {}

    public static List<ArchiveRecord> readAll(String bootstrap, String topic) {
        return readAll(TestRecords.client(bootstrap), topic);
    }

    /**
     * What a read_committed consumer reads of {@code topic} once it holds {@code expected} records, or after 30 s
     * (the caller compares what it got): a transaction's commit returns before its markers reach every partition,
     * so the last stable offsets of a topic just written in transactions (a restore's target) may lag a moment.
     */
    public static List<ArchiveRecord> readCommitted(String bootstrap, String topic, int expected) throws Exception {
        try {
            Await.until(expected + " committed records in " + topic, Duration.ofSeconds(30),
                    () -> readAll(bootstrap, topic).size() >= expected);
        } catch (AssertionError fewer) {
            // compared by the caller, record by record
        }
        return readAll(bootstrap, topic);
    }

    /**
     * What a read_committed consumer reads of {@code topic} once every transaction written to it is decided and its
     * markers are in every partition (the last stable offsets reach the log ends), or after 30 s: for a topic whose
     * record count is not known beforehand (a compacted restore target).
     */
    public static List<ArchiveRecord> readSettled(String bootstrap, String topic) throws Exception {
        try {
            Await.until("every transaction of " + topic + " decided and marked", Duration.ofSeconds(30),
                    () -> endOffsets(bootstrap, topic, "read_committed").equals(endOffsets(bootstrap, topic, "read_uncommitted")));
        } catch (AssertionError open) {
            // compared by the caller, record by record
        }
        return readAll(bootstrap, topic);
    }

    private static Map<TopicPartition, Long> endOffsets(String bootstrap, String topic, String isolation) {
        Properties props = new Properties();
        props.putAll(TestRecords.client(bootstrap));
        props.putAll(Map.of(
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation));
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition()))
                    .collect(Collectors.toList());
            return consumer.endOffsets(partitions, Duration.ofSeconds(30));
        }
    }

    /** Every record of {@code topic} a read_committed consumer reads, connecting with {@code client}. */
    public static List<ArchiveRecord> readAll(Properties client, String topic) {
        Properties props = new Properties();
        props.putAll(client);
        props.putAll(Map.of(
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5_000,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                // never skip silently: an out-of-range position must surface, not jump to the log end
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none"));
        ArchiveRecordDeserializer deserializer = new ArchiveRecordDeserializer();
        List<ArchiveRecord> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition()))
                    .collect(Collectors.toList());
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            // a read_committed consumer's end offsets are the last stable offsets
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
            Instant deadline = Instant.now().plus(Duration.ofMinutes(2));
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                if (Instant.now().isAfter(deadline)) {
                    throw new AssertionError("Could not read " + topic + " to its end within 2 minutes");
                }
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(500));
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    deserializer.deserialize(r, new org.apache.flink.util.Collector<>() {
                        @Override
                        public void collect(ArchiveRecord record) {
                            out.add(record);
                        }

                        @Override
                        public void close() {}
                    });
                }
            }
        }
        return out;
    }
}
