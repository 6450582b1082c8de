package io.archiver.audit;

/** What the archive holds for one topic partition: files, bytes, records and the offsets they span. */
public final class PartitionSummary {

    private final String topic;
    private final int partition;
    private int files;
    private long bytes;
    private long records;
    private long minOffset = Long.MAX_VALUE;
    private long maxOffset = -1;

    PartitionSummary(String topic, int partition) {
        this.topic = topic;
        this.partition = partition;
    }

    void addFile(long size) {
        files++;
        bytes += size;
    }

    void addRecord(long offset) {
        records++;
        minOffset = Math.min(minOffset, offset);
        maxOffset = Math.max(maxOffset, offset);
    }

    public String topic() {
        return topic;
    }

    public int partition() {
        return partition;
    }

    public int files() {
        return files;
    }

    public long bytes() {
        return bytes;
    }

    public long records() {
        return records;
    }

    /** Smallest archived offset, or -1 when no record is archived. */
    public long minOffset() {
        return records == 0 ? -1 : minOffset;
    }

    public long maxOffset() {
        return maxOffset;
    }
}
