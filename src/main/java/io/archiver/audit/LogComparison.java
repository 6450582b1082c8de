package io.archiver.audit;

import io.archiver.archive.OffsetRuns;
import io.archiver.archive.PartitionReport;
import io.archiver.archive.RejectedRecords;
import io.archiver.record.DeadLetter;
import io.archiver.record.RecordDigest;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Compares one partition's archived offsets with its committed log, both ways, while the log is read in
 * offset order: every committed record between the first and last archived or rejected offset must be archived
 * ({@link #missing()}) or rejected on purpose ({@link #rejections()}: dead-lettered or skipped), and every archived
 * offset must hold a committed record ({@link #notInLog()}). With the archive's digests (a deep read) each archived
 * record's content is compared with the committed record at its offset ({@link #contentDiffers()}), unless the job
 * rejected Kafka's record there as written after a truncation of the log ({@link #truncated()}). Archived
 * offsets below the log start cannot be checked (retention deleted them) and are only counted.
 */
final class LogComparison {

    /** Offsets whose content differs, named with their fields, that a report lists. */
    static final int EXAMPLES = 10;

    private final long[] archived;
    /** Dropped once the log is read: 16 bytes a record. */
    private PartitionReport.Digests digests;
    private final RejectedRecords.OfPartition rejected;
    private final long beforeLogStart;
    private final OffsetRuns missing = new OffsetRuns();
    private final Map<RejectedRecords.Kind, Rejections> rejections = new EnumMap<>(RejectedRecords.Kind.class);
    private final OffsetRuns contentDiffers = new OffsetRuns();
    private final long[] differingFields = new long[RecordDigest.fieldCount()];
    private final List<String> differingExamples = new ArrayList<>();
    private long rejectedSinceArchived;
    /** Records the erasure log names that the archive still holds: an erasure cut short. */
    private final OffsetRuns erasedStillArchived = new OffsetRuns();
    /** Archived records Kafka replaced after truncating its log: the job rejected the record Kafka wrote in their place. */
    private final OffsetRuns truncated = new OffsetRuns();
    private long[] notInLog = new long[16];
    private int notInLogSize;
    /** Indexes into {@link #notInLog} where a committed record came between: a new run starts there. */
    private final BitSet runStarts = new BitSet();
    private boolean committedSinceLast = true;
    private int next;
    private int nextRejected;
    private long firstUnarchived = -1;

    /** {@code archived}: distinct archived offsets, ascending; {@code logStart}: the first offset Kafka still holds. */
    LogComparison(long[] archived, long logStart) {
        this(archived, null, RejectedRecords.OfPartition.NONE, logStart);
    }

    /** {@code digests}: of the archived offsets, or null (contents not compared); {@code rejected}: the partition's rejected records. */
    LogComparison(long[] archived, PartitionReport.Digests digests, RejectedRecords.OfPartition rejected, long logStart) {
        this.archived = archived;
        this.digests = digests;
        this.rejected = rejected;
        int i = Arrays.binarySearch(archived, logStart);
        this.next = i >= 0 ? i : -i - 1;
        this.beforeLogStart = next;
        for (RejectedRecords.Kind kind : RejectedRecords.Kind.values()) {
            rejections.put(kind, new Rejections());
        }
    }

    /** The next committed record of the log, at {@code offset}. */
    void committed(long offset) {
        compare(offset, false, 0, 0);
    }

    /** The next committed record of the log, at {@code offset}, with its {@link RecordDigest}. */
    void committed(long offset, long word, long timestamp) {
        compare(offset, true, word, timestamp);
    }

    private void compare(long offset, boolean withDigest, long word, long timestamp) {
        while (next < archived.length && archived[next] < offset) {
            notInLog(archived[next++]);
            breakRuns(null);
        }
        while (nextRejected < rejected.size() && rejected.offset(nextRejected) < offset) {
            nextRejected++;
        }
        boolean isRejected = nextRejected < rejected.size() && rejected.offset(nextRejected) == offset;
        if (next < archived.length && archived[next] == offset && isRejected
                && rejected.reason(nextRejected).startsWith(DeadLetter.KAFKA_TRUNCATED)) {
            breakRuns(truncated);
            truncated.add(offset);
            next++;
        } else if (next < archived.length && archived[next] == offset) {
            int fields = withDigest && digests != null
                    ? RecordDigest.differences(digests.words()[next], digests.timestamps()[next], word, timestamp)
                    : 0;
            if (fields != 0) {
                differs(offset, fields);
            } else {
                breakRuns(null);
            }
            next++;
            if (isRejected && rejected.kind(nextRejected) == RejectedRecords.Kind.ERASED) {
                erasedStillArchived.add(offset);
            } else if (isRejected) {
                rejectedSinceArchived++;
            }
        } else if (isRejected) {
            Rejections r = rejections.get(rejected.kind(nextRejected));
            breakRuns(r.offsets());
            r.add(offset, rejected.reason(nextRejected));
        } else {
            breakRuns(missing);
            missing.add(offset);
        }
        committedSinceLast = true;
    }

    private void differs(long offset, int fields) {
        breakRuns(contentDiffers);
        contentDiffers.add(offset);
        for (int f = 0; f < differingFields.length; f++) {
            if ((fields & (1 << f)) != 0) {
                differingFields[f]++;
            }
        }
        if (differingExamples.size() < EXAMPLES) {
            differingExamples.add(offset + " (" + RecordDigest.names(fields) + ")");
        }
    }

    /** Ends every run but {@code growing}'s: something else came between. */
    private void breakRuns(OffsetRuns growing) {
        for (OffsetRuns runs : List.of(missing, contentDiffers, rejections.get(RejectedRecords.Kind.DEAD_LETTERED).offsets(),
                rejections.get(RejectedRecords.Kind.SKIPPED).offsets(), rejections.get(RejectedRecords.Kind.ERASED).offsets(),
                erasedStillArchived, truncated)) {
            if (runs != growing) {
                runs.breakRun();
            }
        }
    }

    /** The log was read up to the last archived or rejected offset; {@code firstBeyond}: the first committed record after it, -1 if none. */
    void end(long firstBeyond) {
        while (next < archived.length) {
            notInLog(archived[next++]);
        }
        firstUnarchived = firstBeyond;
        digests = null;
    }

    /** Committed records the archive lacks and nothing rejected, between its first and last offset. */
    OffsetRuns missing() {
        return missing;
    }

    /** Committed records rejected on purpose and not archived, by kind. */
    Map<RejectedRecords.Kind, Rejections> rejections() {
        return rejections;
    }

    /** Records the erasure log names that the archive still holds (an erasure to run again). */
    OffsetRuns erasedStillArchived() {
        return erasedStillArchived;
    }

    /**
     * Archived records Kafka no longer holds: after truncating its log it wrote another record at their offset, which the
     * job read again and rejected ({@link DeadLetter#KAFKA_TRUNCATED}); the archive keeps its record.
     */
    OffsetRuns truncated() {
        return truncated;
    }

    /** Rejected records archived since (re-archived once their format was fixed): counted as archived. */
    long rejectedSinceArchived() {
        return rejectedSinceArchived;
    }

    /** Archived records whose content differs from the committed record at their offset (deep reads only). */
    OffsetRuns contentDiffers() {
        return contentDiffers;
    }

    /** Of {@link #contentDiffers()}: how many differ in each field, in {@link RecordDigest} field order. */
    long[] differingFields() {
        return differingFields.clone();
    }

    /** The first {@value #EXAMPLES} offsets whose content differs, each with its fields. */
    List<String> differingExamples() {
        return differingExamples;
    }

    /** Archived offsets at or after the log start where the committed log holds no record, ascending. */
    long[] notInLog() {
        return Arrays.copyOf(notInLog, notInLogSize);
    }

    /** Which entries of {@link #notInLog()} begin a run: a committed record lies between them and the one before. */
    BitSet runStarts() {
        return (BitSet) runStarts.clone();
    }

    private void notInLog(long offset) {
        if (notInLogSize == notInLog.length) {
            notInLog = Arrays.copyOf(notInLog, notInLogSize * 2);
        }
        if (committedSinceLast) {
            runStarts.set(notInLogSize);
            committedSinceLast = false;
        }
        notInLog[notInLogSize++] = offset;
    }

    /** Archived offsets below the log start: not checkable, deleted from Kafka by retention. */
    long beforeLogStart() {
        return beforeLogStart;
    }

    /** The first committed record after the archive's last offset, -1 when Kafka holds none (up to the last stable offset). */
    long firstUnarchived() {
        return firstUnarchived;
    }
}
