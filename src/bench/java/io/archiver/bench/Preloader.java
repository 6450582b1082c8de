package io.archiver.bench;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Random;
import java.util.function.LongFunction;

/**
 * Loads a topic before a benchmark: records of 1 KiB of random letters (compressible like text, not like
 * zeros), a key out of 10,000 and 2 headers, spread round-robin over the partitions.
 */
final class Preloader {

    static final int VALUE_BYTES = 1024;

    private Preloader() {}

    /**
     * Produces {@code records} records to {@code topic}; {@code timestamp} gives the n-th record's timestamp
     * (null: the producer's clock). Returns the bytes of keys and values produced.
     */
    static long preload(String bootstrap, String topic, int partitions, long records, LongFunction<Long> timestamp) {
        return preload(bootstrap, topic, partitions, records, timestamp, (i, random) -> {
            byte[] value = new byte[VALUE_BYTES];
            for (int b = 0; b < VALUE_BYTES; b++) {
                value[b] = (byte) ('a' + random.nextInt(26));
            }
            return value;
        });
    }

    /** The n-th record's value, drawn from {@code random} (seeded: every run produces the same values). */
    interface Values {
        byte[] value(long n, Random random);
    }

    /** {@link #preload} with the values of {@code values}. */
    static long preload(String bootstrap, String topic, int partitions, long records, LongFunction<Long> timestamp, Values values) {
        Map<String, Object> props = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "1",
                ProducerConfig.LINGER_MS_CONFIG, 20,
                ProducerConfig.BATCH_SIZE_CONFIG, 512 * 1024,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        Random random = new Random(42);
        long bytes = 0;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            for (long i = 0; i < records; i++) {
                byte[] value = values.value(i, random);
                byte[] key = ("key-" + (i % 10_000)).getBytes(StandardCharsets.UTF_8);
                ProducerRecord<byte[], byte[]> r =
                        new ProducerRecord<>(topic, (int) (i % partitions), timestamp.apply(i), key, value);
                r.headers().add("source", "bench".getBytes(StandardCharsets.UTF_8));
                r.headers().add("seq", Long.toString(i).getBytes(StandardCharsets.UTF_8));
                producer.send(r);
                bytes += key.length + value.length;
            }
            producer.flush();
        }
        return bytes;
    }
}
