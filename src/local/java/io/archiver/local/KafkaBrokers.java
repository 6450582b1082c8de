package io.archiver.local;

import java.util.Map;

/** A Kafka cluster the tests and the local stack archive from: one in-JVM broker or brokers of their own processes. */
public interface KafkaBrokers {

    String bootstrapServers();

    /** Creates {@code topic} with {@code partitions} and returns once every broker serves it. */
    default void createTopic(String topic, int partitions) throws Exception {
        createTopic(topic, partitions, Map.of());
    }

    /** {@link #createTopic(String, int)} with topic {@code configs} (e.g. {@code cleanup.policy: compact}). */
    void createTopic(String topic, int partitions, Map<String, String> configs) throws Exception;
}
