package io.archiver.sink.files;

import java.util.Objects;

/**
 * What one archive part file holds of one topic-partition: the first and last Kafka offset written to it and
 * the number of records. A partition's records reach the writer in offset order, so the file's records of the
 * partition all lie in {@code [firstOffset, lastOffset]}. A file holds one partition in the per-partition
 * layout, and any number in the per-topic layout: it has one of these per partition.
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
