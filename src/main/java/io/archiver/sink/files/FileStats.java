package io.archiver.sink.files;

import java.util.Objects;

/**
 * What one archive part file holds of one topic-partition: the first and last Kafka offset written to it and
 * the number of records. A partition's records reach the writer in offset order, so the file's records of the
 * partition all lie in {@code [firstOffset, lastOffset]}. A file holds one partition in the per-partition
 * layout, and any number in the per-topic layout: it has one of these per partition. {@code lastLeaderEpoch} is the
 * leader epoch Kafka gave the record at {@code lastOffset} (-1: unknown, as for files read back from the archive, whose
 * records do not keep it): a job starting over the archive asks Kafka whether its log still holds that record.
 */
public record FileStats(String topic, int partition, long firstOffset, long lastOffset, long records, int lastLeaderEpoch) {

    public FileStats {
        Objects.requireNonNull(topic, "topic");
    }

    /** What a file holds of a partition, the last record's leader epoch unknown. */
    public FileStats(String topic, int partition, long firstOffset, long lastOffset, long records) {
        this(topic, partition, firstOffset, lastOffset, records, -1);
    }

    @Override
    public String toString() {
        return topic + "-" + partition + " offsets " + firstOffset + ".." + lastOffset + " (" + records + " records)";
    }
}
