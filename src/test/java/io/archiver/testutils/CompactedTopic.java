package io.archiver.testutils;

import io.archiver.record.ArchiveRecord;

import org.apache.kafka.clients.producer.KafkaProducer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/**
 * A compacted topic whose log already has the holes compaction leaves: batches of records with keys {@code
 * key-0} to {@code key-199}, each batch in a segment of its own (segments roll after 100 ms), until the cleaner
 * has left a committed reader at most {@value #KEPT_PERCENT} % of them. Compaction goes on while a test runs
 * (test records reuse those keys), so the archive may keep records Kafka removes later: see {@link
 * ArchiveAssertions#assertExactlyOnce(String, io.archiver.record.PayloadFormats, java.util.List, boolean)}.
 */
public final class CompactedTopic {

    static final int KEPT_PERCENT = 60;
    private static final int BATCH = 200;
    private static final int AT_LEAST = 2_000;

    private CompactedTopic() {}

    /** Creates {@code topic}, compacted and full of holes. */
    public static void create(String topic, int partitions) throws Exception {
        SharedStack stack = SharedStack.get();
        stack.kafka().createTopic(topic, partitions, Map.of("cleanup.policy", "compact", "segment.ms", "100", "min.cleanable.dirty.ratio",
                "0.01", "min.compaction.lag.ms", "0", "delete.retention.ms", "86400000"));
        int[] produced = {0};
        try (KafkaProducer<byte[], byte[]> producer = TestRecords.producer(stack.kafka().bootstrapServers())) {
            // a batch per poll: the polls' spacing rolls a segment per batch, which the cleaner can compact
            Await.until("compaction of " + topic, Duration.ofMinutes(2), () -> {
                for (int i = produced[0]; i < produced[0] + BATCH; i++) {
                    ArchiveRecord r = TestRecords.record(topic, i % partitions, i, TestRecords.Timestamps.IN_ORDER);
                    r.setKey(("key-" + i % BATCH).getBytes(StandardCharsets.UTF_8));
                    producer.send(TestRecords.toProducerRecord(r));
                }
                producer.flush();
                produced[0] += BATCH;
                return produced[0] >= AT_LEAST
                        && KafkaTopicReader.readAll(stack.kafka().bootstrapServers(), topic).size() <= produced[0] * KEPT_PERCENT / 100;
            });
        }
    }
}
