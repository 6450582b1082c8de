package io.archiver.audit;

import io.archiver.archive.OffsetRuns;

import java.util.Arrays;
import java.util.BitSet;

/**
 * Compares one partition's archived offsets with its committed log, both ways, while the log is read in
 * offset order: every committed record between the first and last archived offset must be archived
 * ({@link #missing()}), and every archived offset must hold a committed record ({@link #notInLog()}).
 * Archived offsets below the log start cannot be checked (retention deleted them) and are only counted.
 */
final class LogComparison {

    private final long[] archived;
    private final long beforeLogStart;
    private final OffsetRuns missing = new OffsetRuns();
    private long[] notInLog = new long[16];
    private int notInLogSize;
    /** Indexes into {@link #notInLog} where a committed record came between: a new run starts there. */
    private final BitSet runStarts = new BitSet();
    private boolean committedSinceLast = true;
    private int next;
    private long firstUnarchived = -1;

    /** {@code archived}: distinct archived offsets, ascending; {@code logStart}: the first offset Kafka still holds. */
    LogComparison(long[] archived, long logStart) {
        this.archived = archived;
        int i = Arrays.binarySearch(archived, logStart);
        this.next = i >= 0 ? i : -i - 1;
        this.beforeLogStart = next;
    }

    /** The next committed record of the log, at {@code offset}. */
    void committed(long offset) {
        while (next < archived.length && archived[next] < offset) {
            notInLog(archived[next++]);
            missing.breakRun();
        }
        if (next < archived.length && archived[next] == offset) {
            next++;
            missing.breakRun();
        } else {
            missing.add(offset);
        }
        committedSinceLast = true;
    }

    /** The log was read up to the last archived offset; {@code firstBeyond}: the first committed record after it, -1 if none. */
    void end(long firstBeyond) {
        while (next < archived.length) {
            notInLog(archived[next++]);
        }
        firstUnarchived = firstBeyond;
    }

    /** Committed records the archive lacks, between its first and last offset. */
    OffsetRuns missing() {
        return missing;
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
