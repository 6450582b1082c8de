package io.archiver.config;

/** How the archive's files divide the records: one file per Kafka partition, or files shared by a topic's partitions. */
public enum SinkLayout implements ConfigValue {
    /** topic=&lt;t&gt;/partition=&lt;p&gt;/[time folders]: a file per partition and time folder written per checkpoint. */
    PER_PARTITION,
    /** topic=&lt;t&gt;/[time folders]: a file per sink subtask, topic and time folder, rows grouped by partition. */
    PER_TOPIC;

    @Override
    public String toString() {
        return configName();
    }
}
