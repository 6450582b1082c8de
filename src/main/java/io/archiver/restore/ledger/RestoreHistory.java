package io.archiver.restore.ledger;

import io.archiver.restore.plan.RestoreSelection;
import io.archiver.record.ArchiveRecord;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the restores of one archived partition into one target wrote, as the restore ledger keeps it ({@link
 * RestoreLedger}): the target topic's id when they wrote (a topic deleted and created again has another id, and
 * what was written into the old one is gone), the offset of each target partition where the first of them began,
 * and their runs in the order they wrote. A run is a selection (an offset range and a time window) and how far it
 * read the partition: it wrote every record of its selection up to and including {@code through} that no earlier
 * run had written, in archived offset order. A record was written when some run took it; a later run with another
 * selection writes only what none took, so that a later {@code --until}, an earlier {@code --since} or a wider
 * offset range add each newly selected record once, after what was written before.
 */
public record RestoreHistory(String targetTopicId, Map<String, Long> starts, List<Run> runs) implements Serializable {

    /**
     * One run: the records of offsets {@code from..to} stamped within {@code since..until} (epoch ms, null when
     * open), read up to and including archived offset {@code through}; {@code written} records in all; {@code
     * lastStart} when it was last started (epoch ms: none of its records is older in the target).
     */
    public record Run(long from, long to, Long since, Long until, long through, long written, long lastStart) implements Serializable {

        public static Run of(RestoreSelection selection, long startedAt) {
            return new Run(selection.fromOffset(), selection.toOffset(), selection.since() == null ? null : selection.since().toEpochMilli(),
                    selection.until() == null ? null : selection.until().toEpochMilli(), -1, 0, startedAt);
        }

        /** Whether this run's selection takes {@code r} (whether it read that far or not). */
        public boolean selects(ArchiveRecord r) {
            long offset = r.getOffset();
            long timestamp = r.getTimestamp();
            return offset >= from && offset <= to && (since == null || timestamp >= since) && (until == null || timestamp <= until);
        }

        boolean wrote(ArchiveRecord r) {
            return r.getOffset() <= through && selects(r);
        }

        /** The records this run selects, as a selection of the partition it is kept for. */
        public RestoreSelection selection() {
            return new RestoreSelection(java.util.Set.of(), null, java.util.Set.of(), Map.of(), from, to,
                    since == null ? null : java.time.Instant.ofEpochMilli(since), until == null ? null : java.time.Instant.ofEpochMilli(until), false);
        }

        public boolean sameSelection(Run other) {
            return from == other.from && to == other.to && java.util.Objects.equals(since, other.since)
                    && java.util.Objects.equals(until, other.until);
        }

        Run readThrough(long offset, long moreWritten) {
            return new Run(from, to, since, until, Math.max(through, offset), written + moreWritten, lastStart);
        }

        /** The selection as the command line wrote it, for messages. */
        public String describe() {
            StringBuilder s = new StringBuilder();
            if (from > 0 || to < Long.MAX_VALUE) {
                s.append("--offsets ").append(from).append('-').append(to == Long.MAX_VALUE ? "" : to).append(' ');
            }
            if (since != null) {
                s.append("--since ").append(java.time.Instant.ofEpochMilli(since)).append(' ');
            }
            if (until != null) {
                s.append("--until ").append(java.time.Instant.ofEpochMilli(until)).append(' ');
            }
            return s.length() == 0 ? "everything" : s.toString().trim();
        }
    }

    public RestoreHistory {
        starts = new TreeMap<>(starts);
        runs = List.copyOf(runs);
    }

    /** No restore wrote into this target yet: it begins at {@code starts}. */
    public static RestoreHistory empty(String targetTopicId, Map<String, Long> starts) {
        return new RestoreHistory(targetTopicId, starts, List.of());
    }

    /** Whether an earlier run wrote {@code r}. */
    public boolean written(ArchiveRecord r) {
        for (Run run : runs) {
            if (run.wrote(r)) {
                return true;
            }
        }
        return false;
    }

    /** Whether run {@code index} wrote {@code r} and no earlier run had: the record it put into the target. */
    public boolean writtenBy(int index, ArchiveRecord r) {
        if (!runs.get(index).wrote(r)) {
            return false;
        }
        for (int i = 0; i < index; i++) {
            if (runs.get(i).wrote(r)) {
                return false;
            }
        }
        return true;
    }

    /** Records written in all runs. */
    public long writtenRecords() {
        return runs.stream().mapToLong(Run::written).sum();
    }

    /**
     * This history with a run of {@code selection} begun at {@code startedAt}: the last run goes on when its
     * selection is the same (a restore started again after a crash, a cancel or its end), else a new run is added.
     */
    public RestoreHistory begin(RestoreSelection selection, long startedAt) {
        Run next = Run.of(selection, startedAt);
        List<Run> more = new ArrayList<>(runs);
        Run last = runs.isEmpty() ? null : runs.get(runs.size() - 1);
        if (last != null && last.sameSelection(next)) {
            more.set(more.size() - 1, new Run(last.from, last.to, last.since, last.until, last.through, last.written,
                    Math.max(last.lastStart, startedAt)));
        } else {
            more.add(next);
        }
        return new RestoreHistory(targetTopicId, starts, more);
    }

    /** This history after its last run read the partition up to {@code offset} and wrote {@code written} more records. */
    public RestoreHistory readThrough(long offset, long written) {
        List<Run> more = new ArrayList<>(runs);
        more.set(more.size() - 1, runs.get(runs.size() - 1).readThrough(offset, written));
        return new RestoreHistory(targetTopicId, starts, more);
    }

    /** How far the last run read (-1 when it has not). */
    public long lastThrough() {
        return runs.isEmpty() ? -1 : runs.get(runs.size() - 1).through();
    }
}
