package io.archiver.testutils;

import io.archiver.record.ArchiveRecord;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.function.IntFunction;
import java.util.stream.Collectors;

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
        return produce(bootstrap, first, count, i -> record(topic, i % partitions, i));
    }

    /** Like {@link #produce}, with every value replaced by {@code valueBytes} random letters. */
    public static List<ArchiveRecord> produceLargeValues(String bootstrap, String topic, int partitions, int count, int valueBytes)
            throws Exception {
        Random random = new Random(count);
        return produce(bootstrap, 0, count, i -> {
            ArchiveRecord r = record(topic, i % partitions, i);
            byte[] value = new byte[valueBytes];
            for (int b = 0; b < valueBytes; b++) {
                value[b] = (byte) ('a' + random.nextInt(26));
            }
            r.setValue(value);
            return r;
        });
    }

    /** Produces {@code records.apply(i)} for i from {@code first} on, {@code count} of them, and returns them with their offsets. */
    public static List<ArchiveRecord> produce(String bootstrap, int first, int count, IntFunction<ArchiveRecord> records)
            throws Exception {
        List<ArchiveRecord> sent = new ArrayList<>(count);
        List<Future<RecordMetadata>> acks = new ArrayList<>(count);
        try (KafkaProducer<byte[], byte[]> producer = producer(bootstrap)) {
            for (int i = first; i < first + count; i++) {
                ArchiveRecord r = records.apply(i);
                sent.add(r);
                acks.add(producer.send(toProducerRecord(r)));
            }
            producer.flush();
            for (int i = 0; i < count; i++) {
                sent.get(i).setOffset(acks.get(i).get().offset());
            }
        }
        return sent;
    }

    /** The client settings of an unsecured broker: its bootstrap servers. */
    public static Properties client(String bootstrap) {
        Properties client = new Properties();
        client.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return client;
    }

    /**
     * A producer of byte arrays that waits for every replica and retries for up to 5 minutes. Not idempotent:
     * the embedded test-kit broker has handed the same producer id to two producer instances, which then
     * fail with OutOfOrderSequenceException; one request in flight keeps the order without it.
     */
    public static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
        return new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.LINGER_MS_CONFIG, 5,
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false,
                ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 300_000,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class));
    }

    /**
     * A transactional producer of byte arrays ({@code initTransactions} done): idempotent, waits for every
     * replica. {@code transactionalId} must be unique among live producers.
     */
    public static KafkaProducer<byte[], byte[]> transactionalProducer(String bootstrap, String transactionalId) {
        return transactionalProducer(client(bootstrap), transactionalId);
    }

    /** Like {@link #transactionalProducer(String, String)}, connecting with {@code client} (bootstrap servers, security). */
    public static KafkaProducer<byte[], byte[]> transactionalProducer(Properties client, String transactionalId) {
        Properties props = new Properties();
        props.putAll(client);
        props.putAll(Map.of(
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.LINGER_MS_CONFIG, 5,
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 300_000,
                ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class));
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props);
        producer.initTransactions();
        return producer;
    }

    /**
     * Produces records {@code first .. first+count-1} in transactions of {@code perTransaction} records, spread
     * over the partitions; every {@code abortEvery}-th transaction is aborted after its records reached the log.
     * Returns the records of the committed transactions with their offsets (aborted ones are not returned).
     */
    public static List<ArchiveRecord> produceTransactions(
            String bootstrap, String topic, int partitions, int first, int count, int perTransaction, int abortEvery)
            throws Exception {
        return produceTransactions(client(bootstrap), topic, partitions, first, count, perTransaction, abortEvery);
    }

    /** Like {@link #produceTransactions(String, String, int, int, int, int, int)}, connecting with {@code client}. */
    public static List<ArchiveRecord> produceTransactions(
            Properties client, String topic, int partitions, int first, int count, int perTransaction, int abortEvery)
            throws Exception {
        List<ArchiveRecord> committed = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = transactionalProducer(client, "tx-" + topic + "-" + first)) {
            int transaction = 0;
            for (int start = first; start < first + count; start += perTransaction) {
                boolean abort = ++transaction % abortEvery == 0;
                List<ArchiveRecord> sent = new ArrayList<>();
                List<Future<RecordMetadata>> acks = new ArrayList<>();
                producer.beginTransaction();
                for (int i = start; i < Math.min(start + perTransaction, first + count); i++) {
                    ArchiveRecord r = record(topic, i % partitions, i);
                    sent.add(r);
                    acks.add(producer.send(toProducerRecord(r)));
                }
                producer.flush(); // the records reach the log whether the transaction then commits or aborts
                for (int k = 0; k < sent.size(); k++) {
                    sent.get(k).setOffset(acks.get(k).get().offset());
                }
                if (abort) {
                    producer.abortTransaction();
                } else {
                    producer.commitTransaction();
                    committed.addAll(sent);
                }
            }
        }
        return committed;
    }

    /** The Kafka record that carries an envelope's partition, timestamp, key, value and headers. */
    public static ProducerRecord<byte[], byte[]> toProducerRecord(ArchiveRecord r) {
        ProducerRecord<byte[], byte[]> pr =
                new ProducerRecord<>(r.getTopic(), r.getPartition(), r.getTimestamp(), r.getKey(), r.getValue());
        for (int h = 0; h < r.getHeaderKeys().length; h++) {
            pr.headers().add(r.getHeaderKeys()[h], r.getHeaderValues()[h]);
        }
        return pr;
    }

    static ArchiveRecord record(String topic, int partition, int i) {
        return record(topic, partition, i, Timestamps.IN_ORDER);
    }

    /** How record timestamps follow the record number. */
    public enum Timestamps {
        /** One second apart, rising: a partition's records fill one hour folder after the other. */
        IN_ORDER,
        /**
         * Late records: each record is also shifted back by 0, 1 or 2 hours, so consecutive records of a
         * partition land in three hour folders at once.
         */
        OUT_OF_ORDER
    }

    public static ArchiveRecord record(String topic, int partition, int i, Timestamps timestamps) {
        byte[] key = i % 97 == 0 ? null : utf8("key-" + i);
        // compact JSON mostly; now and then as people write it (spaces, a line break, a number in its own spelling),
        // which an archive must keep byte for byte too
        byte[] value = i % 50 == 0 ? null : utf8(i % 7 == 0
                ? "{\"i\": " + i + ", \"price\": 1.50,\n  \"list\": [1, 2]}"
                : "{\"i\":" + i + ",\"text\":\"caf\u00e9 \\\"quoted\\\"\",\"list\":[1,2]}");
        int headers = i % 3;
        String[] keys = new String[headers];
        byte[][] values = new byte[headers][];
        for (int h = 0; h < headers; h++) {
            keys[h] = "h" + h;
            values[h] = (i % 11 == 0 && h == 1) ? null : utf8("v" + i + "-" + h);
        }
        long timestamp = BASE_TIMESTAMP + (long) i * 1_000L
                + (timestamps == Timestamps.OUT_OF_ORDER ? 3 * 3_600_000L - (i % 3) * 3_600_000L : 0);
        return new ArchiveRecord(topic, partition, -1, timestamp, "CreateTime", key, value, keys, values);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Per partition number, the records in order as (timestamp, key, value, headers): what a restore must keep. */
    public static Map<Integer, List<String>> byPartition(List<ArchiveRecord> records) {
        Map<Integer, List<String>> partitions = new TreeMap<>();
        List<ArchiveRecord> ordered = new ArrayList<>(records);
        ordered.sort((a, b) -> a.getPartition() != b.getPartition()
                ? Integer.compare(a.getPartition(), b.getPartition()) : Long.compare(a.getOffset(), b.getOffset()));
        for (ArchiveRecord r : ordered) {
            String headers = java.util.stream.IntStream.range(0, r.getHeaderKeys().length)
                    .mapToObj(i -> r.getHeaderKeys()[i] + "=" + Arrays.toString(r.getHeaderValues()[i]))
                    .collect(Collectors.joining(","));
            partitions.computeIfAbsent(r.getPartition(), p -> new ArrayList<>()).add(
                    r.getTimestamp() + "|" + Arrays.toString(r.getKey()) + "|" + Arrays.toString(r.getValue()) + "|" + headers);
        }
        return partitions;
    }
}
