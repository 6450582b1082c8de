package io.archiver.local;

/** A Kafka cluster the tests and the local stack archive from: one in-JVM broker or brokers of their own processes. */
public interface KafkaBrokers {

    String bootstrapServers();

    /** Creates {@code topic} with {@code partitions} and returns once every broker serves it. */
    void createTopic(String topic, int partitions) throws Exception;
}
