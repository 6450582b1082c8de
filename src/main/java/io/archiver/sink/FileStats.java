package io.archiver.sink;

import java.io.Serializable;
import java.util.Objects;

/**
 * What one archive part file holds: its topic-partition, the first and last Kafka offset written to it and
 * the number of records. Part files hold one partition each (the bucket is per partition), and a partition's
 * records reach the writer in offset order, so the file's records all lie in {@code [first, last]}.
 */
public final class FileStats implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String topic;
    private final int partition;
    private final long firstOffset;
    private final long lastOffset;
    private final long records;

    public FileStats(String topic, int partition, long firstOffset, long lastOffset, long records) {
        this.topic = Objects.requireNonNull(topic, "topic");
        this.partition = partition;
        this.firstOffset = firstOffset;
        this.lastOffset = lastOffset;
        this.records = records;
    }

    public String topic() {
        return topic;
    }

    public int partition() {
        return partition;
    }

    public long firstOffset() {
        return firstOffset;
    }

    public long lastOffset() {
        return lastOffset;
    }

    public long records() {
        return records;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof FileStats)) {
            return false;
        }
        FileStats f = (FileStats) o;
        return partition == f.partition && firstOffset == f.firstOffset && lastOffset == f.lastOffset
                && records == f.records && topic.equals(f.topic);
    }

    @Override
    public int hashCode() {
        return Objects.hash(topic, partition, firstOffset, lastOffset, records);
    }

    @Override
    public String toString() {
        return topic + "-" + partition + " offsets " + firstOffset + ".." + lastOffset + " (" + records + " records)";
    }
}
