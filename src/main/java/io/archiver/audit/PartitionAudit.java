package io.archiver.audit;

import io.archiver.archive.OffsetRuns;
import io.archiver.archive.PartitionReport;
import io.archiver.archive.RejectedRecords;
import io.archiver.record.RecordDigest;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The audit of one topic partition: what the archive holds, what Kafka holds for a committed reader, and
 * every difference both ways.
 */
public final class PartitionAudit {

    private final String topic;
    private final int partition;
    private final PartitionReport archive;
    private final KafkaPartitionState kafka;
    private final OffsetRuns missing;
    private final ArchivedNotInLog notInLog;
    private final long beforeLogStart;
    private final long firstUnarchived;
    private final long position;
    /** The comparison with Kafka's committed log; null when Kafka does not know the partition. */
    private final LogComparison comparison;

    /**
     * {@code archive} null when nothing is archived, {@code kafka} null when Kafka does not know the
     * partition; {@code firstUnarchived}: the first committed record after the archive, -1 if none.
     */
    PartitionAudit(String topic, int partition, PartitionReport archive, KafkaPartitionState kafka, OffsetRuns missing,
            ArchivedNotInLog notInLog, long beforeLogStart, long firstUnarchived, long position, LogComparison comparison) {
        this.topic = topic;
        this.partition = partition;
        this.archive = archive;
        this.kafka = kafka;
        this.missing = missing;
        this.notInLog = notInLog;
        this.beforeLogStart = beforeLogStart;
        this.firstUnarchived = firstUnarchived;
        this.position = position;
        this.comparison = comparison;
    }

    public String getTopic() {
        return topic;
    }

    public int getPartition() {
        return partition;
    }

    public int getFiles() {
        return archive == null ? 0 : archive.files().size();
    }

    public long getBytes() {
        return archive == null ? 0 : archive.bytes();
    }

    public long getRecords() {
        return archive == null ? 0 : archive.records();
    }

    /** First archived offset, -1 when nothing is archived. */
    public long getFirstOffset() {
        return archive == null ? -1 : archive.firstOffset();
    }

    /** Last archived offset, -1 when nothing is archived. */
    public long getLastOffset() {
        return archive == null ? -1 : archive.lastOffset();
    }

    /** Committed records Kafka holds between the first and last archived offset that the archive lacks. */
    public long getMissing() {
        return missing.count();
    }

    /** The missing records as {@code [first, last]} offset runs. */
    public List<long[]> getMissingRanges() {
        return missing.runs();
    }

    public OffsetRuns missing() {
        return missing;
    }

    /** Committed records written to the dead-letter place instead of the archive ({@code errors.policy: dead-letter}). */
    public long getDeadLettered() {
        return rejections(RejectedRecords.Kind.DEAD_LETTERED).count();
    }

    public List<long[]> getDeadLetteredRanges() {
        return rejections(RejectedRecords.Kind.DEAD_LETTERED).offsets().runs();
    }

    /** Dead-lettered records per reason. */
    public Map<String, Long> getDeadLetterReasons() {
        return rejections(RejectedRecords.Kind.DEAD_LETTERED).reasons();
    }

    /** Committed records skipped and recorded in the skip log ({@code errors.policy: skip}). */
    public long getSkipped() {
        return rejections(RejectedRecords.Kind.SKIPPED).count();
    }

    public List<long[]> getSkippedRanges() {
        return rejections(RejectedRecords.Kind.SKIPPED).offsets().runs();
    }

    /** Skipped records per reason. */
    public Map<String, Long> getSkipReasons() {
        return rejections(RejectedRecords.Kind.SKIPPED).reasons();
    }

    /** Records erased on request (the erasure log): accounted for, not missing. */
    public long getErased() {
        return rejections(RejectedRecords.Kind.ERASED).count();
    }

    public List<long[]> getErasedRanges() {
        return rejections(RejectedRecords.Kind.ERASED).offsets().runs();
    }

    /** Records the erasure log names that the archive still holds: an erasure cut short (run it again). */
    public long getErasedStillArchived() {
        return comparison == null ? 0 : comparison.erasedStillArchived().count();
    }

    /** Records once dead-lettered or skipped that the archive holds now (re-archived): counted as archived. */
    public long getRejectedSinceArchived() {
        return comparison == null ? 0 : comparison.rejectedSinceArchived();
    }

    /** The partition's dead-lettered or skipped records. */
    public Rejections rejections(RejectedRecords.Kind kind) {
        return comparison == null ? new Rejections() : comparison.rejections().get(kind);
    }

    /** Archived records whose key, value, headers, timestamp or its type differ from Kafka's record at their offset (deep audits only). */
    public long getContentMismatches() {
        return comparison == null ? 0 : comparison.contentDiffers().count();
    }

    public List<long[]> getContentMismatchRanges() {
        return comparison == null ? List.of() : comparison.contentDiffers().runs();
    }

    /** Of the content mismatches, how many differ in each field (a record may differ in several). */
    public Map<String, Long> getContentMismatchFields() {
        Map<String, Long> fields = new LinkedHashMap<>();
        if (comparison != null) {
            long[] counts = comparison.differingFields();
            for (int f = 0; f < counts.length; f++) {
                if (counts[f] > 0) {
                    fields.put(RecordDigest.name(1 << f), counts[f]);
                }
            }
        }
        return fields;
    }

    /** The first few records whose content differs, each as its offset and fields ({@code 17 (value, headers)}). */
    public List<String> getContentMismatchExamples() {
        return comparison == null ? List.of() : comparison.differingExamples();
    }

    /** Offsets archived more than once. */
    public long getDuplicatedOffsets() {
        return archive == null ? 0 : archive.duplicates().size();
    }

    /** Offsets archived more than once, each with the files that hold it (a file twice if it holds it twice). */
    public Map<Long, List<String>> duplicateFiles() {
        return archive == null ? Map.of() : archive.duplicates();
    }

    /** Archived records a committed reader of the partition does not see: aborted, open transactions, truncated, absent. */
    public long getArchivedNotInKafka() {
        return notInLog.findings() + (comparison == null ? 0 : comparison.truncated().count());
    }

    /**
     * Archived records Kafka no longer holds because it truncated the partition's log: beyond its log end now, or replaced
     * by a record written after the truncation (which the job rejected: in the dead letters or the skip log). Kept.
     */
    public long getTruncatedRecords() {
        return notInLog.truncated().count() + (comparison == null ? 0 : comparison.truncated().count());
    }

    public List<long[]> getTruncatedRanges() {
        List<long[]> runs = new java.util.ArrayList<>(comparison == null ? List.of() : comparison.truncated().runs());
        runs.addAll(notInLog.truncated().runs());
        return runs;
    }

    /** Archived records of aborted transactions. */
    public long getAbortedRecords() {
        return notInLog.aborted().count();
    }

    public List<long[]> getAbortedRanges() {
        return notInLog.aborted().runs();
    }

    /** Archived records of transactions still open (at or after the last stable offset). */
    public long getOpenTransactionRecords() {
        return notInLog.open().count();
    }

    public List<long[]> getOpenTransactionRanges() {
        return notInLog.open().runs();
    }

    /** Archived offsets where Kafka holds no record for any reader (the topic is not compacted). */
    public long getAbsentRecords() {
        return notInLog.absent().count();
    }

    public List<long[]> getAbsentRanges() {
        return notInLog.absent().runs();
    }

    public ArchivedNotInLog notInLog() {
        return notInLog;
    }

    /** Archived records of a compacted topic that compaction removed from Kafka since: history, not a finding. */
    public long getCompactedSinceArchived() {
        return notInLog.compacted();
    }

    /** Archived records below Kafka's log start (deleted by retention): cannot be compared, not a finding. */
    public long getBeforeLogStart() {
        return beforeLogStart;
    }

    public long getLogStartOffset() {
        return kafka == null ? -1 : kafka.logStart();
    }

    /** The last stable offset: where a committed reader stops (the log end unless a transaction is open). */
    public long getLastStableOffset() {
        return kafka == null ? -1 : kafka.lastStable();
    }

    public long getLogEndOffset() {
        return kafka == null ? -1 : kafka.logEnd();
    }

    public long getGroupOffset() {
        return kafka == null ? -1 : kafka.groupOffset();
    }

    /**
     * Offsets from the first committed record not archived yet to the last stable offset; 0 when Kafka holds
     * no committed record after the archive (a trailing transaction marker or aborted records are not lag).
     */
    public long getLag() {
        if (kafka == null) {
            return -1;
        }
        return firstUnarchived < 0 ? 0 : Math.max(0, kafka.lastStable() - firstUnarchived);
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
        long last = getLastOffset();
        return position < 0 || last < position ? 0 : last - position + 1;
    }

    public boolean isClean() {
        return missing.isEmpty() && getDuplicatedOffsets() == 0 && getArchivedNotInKafka() == 0 && getOffsetsBeyondPosition() == 0
                && getContentMismatches() == 0 && getErasedStillArchived() == 0;
    }
}
