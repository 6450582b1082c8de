package io.archiver.audit;

import java.util.List;

/** The audit of one topic partition: what the archive holds, what Kafka holds, and what is wrong. */
public final class PartitionAudit {

    private final String topic;
    private final int partition;
    private final int files;
    private final long bytes;
    private final long records;
    private final long firstOffset;
    private final long lastOffset;
    private final List<Long> missing;
    private final long duplicates;
    private final KafkaPartitionState kafka;
    private final long position;

    PartitionAudit(String topic, int partition, int files, long bytes, long records, long firstOffset, long lastOffset,
            List<Long> missing, long duplicates, KafkaPartitionState kafka, long position) {
        this.topic = topic;
        this.partition = partition;
        this.files = files;
        this.bytes = bytes;
        this.records = records;
        this.firstOffset = firstOffset;
        this.lastOffset = lastOffset;
        this.missing = missing;
        this.duplicates = duplicates;
        this.kafka = kafka;
        this.position = position;
    }

    /** Next offset of the partition's position record (where a start without state resumes), -1 without record. */
    public long getResumeOffset() {
        return position;
    }

    /**
     * Archived offsets at or beyond the position record's next offset: not covered by committed state (written
     * by a second job or copied in); 0 without record.
     */
    public long getOffsetsBeyondPosition() {
        return position < 0 || lastOffset < position ? 0 : lastOffset - position + 1;
    }

    public String getTopic() {
        return topic;
    }

    public int getPartition() {
        return partition;
    }

    public int getFiles() {
        return files;
    }

    public long getBytes() {
        return bytes;
    }

    public long getRecords() {
        return records;
    }

    /** First archived offset, -1 when nothing is archived. */
    public long getFirstOffset() {
        return firstOffset;
    }

    /** Last archived offset, -1 when nothing is archived. */
    public long getLastOffset() {
        return lastOffset;
    }

    /** Offsets Kafka holds records at, between the first and last archived offset, that the archive lacks. */
    public List<Long> getMissingOffsets() {
        return missing;
    }

    /** Offsets archived more than once. */
    public long getDuplicatedOffsets() {
        return duplicates;
    }

    public long getLogStartOffset() {
        return kafka == null ? -1 : kafka.logStart();
    }

    public long getLogEndOffset() {
        return kafka == null ? -1 : kafka.logEnd();
    }

    public long getGroupOffset() {
        return kafka == null ? -1 : kafka.groupOffset();
    }

    /** Offsets between the archived end and Kafka's log end (records not archived yet). */
    public long getLag() {
        if (kafka == null) {
            return -1;
        }
        long archivedEnd = lastOffset < 0 ? kafka.logStart() : lastOffset + 1;
        return Math.max(0, kafka.logEnd() - archivedEnd);
    }

    public boolean isClean() {
        return missing.isEmpty() && duplicates == 0 && getOffsetsBeyondPosition() == 0;
    }
}
