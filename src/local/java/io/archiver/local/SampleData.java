package io.archiver.local;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.function.IntToLongFunction;

/**
 * Produces demo records: string keys (every 50th null), JSON values (every 20th a tombstone) and two
 * string headers, spread over the topic's partitions by key.
 */
public final class SampleData {

    private SampleData() {}

    public static void produce(String bootstrapServers, String topic, int count) throws Exception {
        Properties client = new Properties();
        client.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        produce(client, topic, count);
    }

    /** Like {@link #produce(String, String, int)}, connecting with {@code client} (bootstrap servers, security). */
    public static void produce(Properties client, String topic, int count) throws Exception {
        produce(client, topic, 0, count, null);
    }

    /**
     * Records number {@code first} to {@code first + count - 1}, each with the timestamp {@code timestamps} gives its
     * number (null: the producer's clock).
     */
    public static void produce(Properties client, String topic, int first, int count, IntToLongFunction timestamps) throws Exception {
        Properties props = new Properties();
        props.putAll(client);
        props.putAll(Map.of(
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.LINGER_MS_CONFIG, 5,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class));
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            Future<?> last = null;
            for (int i = first; i < first + count; i++) {
                byte[] key = i % 50 == 0 ? null : utf8("user-" + (i % 97));
                byte[] value = i % 20 == 0 ? null : utf8("{\"seq\":" + i + ",\"event\":\"click\",\"page\":\"/p/" + (i % 13) + "\"}");
                ProducerRecord<byte[], byte[]> record =
                        new ProducerRecord<>(topic, null, timestamps == null ? null : timestamps.applyAsLong(i), key, value);
                record.headers().add("source", utf8("kafka-s3-archiver-demo"));
                record.headers().add("seq", utf8(Integer.toString(i)));
                last = producer.send(record);
            }
            producer.flush();
            if (last != null) {
                last.get();
            }
        }
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
