package io.archiver.testutils;

import io.archiver.record.ArchiveRecord;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;

/**
 * Produces deterministic records to a topic and returns what Kafka acknowledged, as the envelopes the
 * archive must hold. Keys are UTF-8 strings (every 97th null), values JSON objects (every 50th a
 * tombstone), 0–2 string headers (one with a null value now and then), timestamps spread over several
 * hours so record-time folders are exercised.
 */
public final class TestRecords {

    /** 2026-01-01T00:00:00Z. */
    public static final long BASE_TIMESTAMP = 1_767_225_600_000L;

    private TestRecords() {}

    public static List<ArchiveRecord> produce(String bootstrap, String topic, int partitions, int first, int count)
            throws Exception {
        Map<String, Object> props =
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                        ProducerConfig.ACKS_CONFIG, "all",
                        ProducerConfig.LINGER_MS_CONFIG, 5,
                        // The embedded broker has been seen to reject idempotent batches (OutOfOrderSequence)
                        // across producer instances; one request in flight keeps the order without it.
                        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false,
                        ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1,
                        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
                        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        List<ArchiveRecord> sent = new ArrayList<>(count);
        List<Future<RecordMetadata>> acks = new ArrayList<>(count);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            for (int i = first; i < first + count; i++) {
                ArchiveRecord r = record(topic, i % partitions, i);
                ProducerRecord<byte[], byte[]> pr =
                        new ProducerRecord<>(topic, r.getPartition(), r.getTimestamp(), r.getKey(), r.getValue());
                for (int h = 0; h < r.getHeaderKeys().length; h++) {
                    pr.headers().add(r.getHeaderKeys()[h], r.getHeaderValues()[h]);
                }
                sent.add(r);
                acks.add(producer.send(pr));
            }
            producer.flush();
            for (int i = 0; i < count; i++) {
                sent.get(i).setOffset(acks.get(i).get().offset());
            }
        }
        return sent;
    }

    static ArchiveRecord record(String topic, int partition, int i) {
        byte[] key = i % 97 == 0 ? null : utf8("key-" + i);
        byte[] value = i % 50 == 0 ? null : utf8("{\"i\":" + i + ",\"text\":\"caf\u00e9 \\\"quoted\\\"\",\"list\":[1,2]}");
        int headers = i % 3;
        String[] keys = new String[headers];
        byte[][] values = new byte[headers][];
        for (int h = 0; h < headers; h++) {
            keys[h] = "h" + h;
            values[h] = (i % 11 == 0 && h == 1) ? null : utf8("v" + i + "-" + h);
        }
        long timestamp = BASE_TIMESTAMP + (long) i * 1_000L;
        return new ArchiveRecord(topic, partition, -1, timestamp, "CreateTime", key, value, keys, values);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
