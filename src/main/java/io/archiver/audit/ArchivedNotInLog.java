package io.archiver.audit;

import io.archiver.archive.OffsetRuns;

import java.util.Arrays;
import java.util.BitSet;

/**
 * Why archived offsets hold no record for a committed reader of the partition: the records of aborted
 * transactions (the raw log still holds them), of transactions still open (at or after the last stable
 * offset), offsets beyond Kafka's log end (Kafka truncated its log since: the archive keeps them), offsets
 * where Kafka holds nothing at all within its log (never a record), and, on a
 * compacted topic, records compaction removed after they were archived (not a finding: the archive keeps
 * history compaction drops).
 */
public final class ArchivedNotInLog {

    static final ArchivedNotInLog NONE = new ArchivedNotInLog();

    private final OffsetRuns aborted = new OffsetRuns();
    private final OffsetRuns open = new OffsetRuns();
    private final OffsetRuns absent = new OffsetRuns();
    private final OffsetRuns truncated = new OffsetRuns();
    private long compacted;
    private OffsetRuns last;

    /**
     * Sorts {@code offsets} (archived, not in the committed log) by cause. {@code runStarts}: the entries a
     * committed record precedes (a run ends before them); {@code inRawLog}: those below the last stable offset
     * that the log holds for a read_uncommitted reader.
     */
    static ArchivedNotInLog classify(
            long[] offsets, BitSet runStarts, long[] inRawLog, KafkaPartitionState kafka, boolean compactedTopic) {
        ArchivedNotInLog out = new ArchivedNotInLog();
        for (int i = 0; i < offsets.length; i++) {
            long offset = offsets[i];
            if (runStarts.get(i)) {
                out.breakRuns();
            }
            if (offset >= kafka.logEnd()) {
                out.add(out.truncated, offset);
            } else if (offset >= kafka.lastStable()) {
                out.add(out.open, offset);
            } else if (Arrays.binarySearch(inRawLog, offset) >= 0) {
                out.add(out.aborted, offset);
            } else if (compactedTopic) {
                out.compacted++;
                out.breakRuns();
            } else {
                out.add(out.absent, offset);
            }
        }
        return out;
    }

    /** Adds to {@code runs}; an offset of another cause in between ends the run. */
    private void add(OffsetRuns runs, long offset) {
        if (last != runs) {
            breakRuns();
        }
        last = runs;
        runs.add(offset);
    }

    private void breakRuns() {
        aborted.breakRun();
        open.breakRun();
        absent.breakRun();
        truncated.breakRun();
        last = null;
    }

    /** Archived records of aborted transactions. */
    public OffsetRuns aborted() {
        return aborted;
    }

    /** Archived records of transactions not decided yet (at or after the last stable offset). */
    public OffsetRuns open() {
        return open;
    }

    /**
     * Archived offsets at or beyond Kafka's log end: Kafka truncated the partition's log after they were archived (an
     * unclean leader election), or the topic was deleted and created again. The archive keeps them.
     */
    public OffsetRuns truncated() {
        return truncated;
    }

    /** Archived offsets within Kafka's log where it holds no record for any reader, on a topic that is not compacted. */
    public OffsetRuns absent() {
        return absent;
    }

    /** Archived records that compaction removed from a compacted topic since: history, not a finding. */
    public long compacted() {
        return compacted;
    }

    /** Findings: aborted, open, truncated and absent. */
    public long findings() {
        return aborted.count() + open.count() + truncated.count() + absent.count();
    }
}
