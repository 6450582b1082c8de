package io.archiver.sink.files;

import java.util.Objects;

/**
 * What one archive part file holds: its topic-partition, the first and last Kafka offset written to it and
 * the number of records. Part files hold one partition each (the bucket is per partition), and a partition's
 * records reach the writer in offset order, so the file's records all lie in {@code [firstOffset, lastOffset]}.
 */
public record FileStats(String topic, int partition, long firstOffset, long lastOffset, long records) {

    public FileStats {
        Objects.requireNonNull(topic, "topic");
    }

    @Override
    public String toString() {
        return topic + "-" + partition + " offsets " + firstOffset + ".." + lastOffset + " (" + records + " records)";
    }
}
