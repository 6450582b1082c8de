package io.archiver.table;

import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * What a topic's table holds of each partition: the next offset after the files its snapshots appended, read from
 * the snapshots' summaries ({@value #NEXT_OFFSETS}: {@code <partition>=<next offset>,…} of the partitions a snapshot
 * appended to), the highest a snapshot names deciding (offsets never go back). A snapshot written by the archiver also
 * names its checkpoint ({@value #CHECKPOINT}) and job ({@value #JOB}). Compactions name no offsets and are passed over;
 * before an expiry drops the snapshots that name a partition last, it keeps their offsets in a snapshot of its own
 * (job {@value #KEPT}: no files, not an append of the archive's).
 */
public final class TablePositions {

    /** Summary key: the next offset of each partition the snapshot appended files of. */
    public static final String NEXT_OFFSETS = "archiver.next-offsets";
    /** Summary key: the checkpoint whose files the snapshot appended ({@code end-of-input} in batch mode). */
    public static final String CHECKPOINT = "archiver.checkpoint";
    /** Summary key: the Flink job that appended them ({@code register} for files of an archive registered by the CLI). */
    public static final String JOB = "archiver.job";
    /** The job of a snapshot that keeps the offsets of the snapshots an expiry drops. */
    public static final String KEPT = "expire";

    private final Map<Integer, Long> next;
    /** Commit time of the newest snapshot the archiver wrote, if any. */
    private final OptionalLong lastAppendMillis;

    private TablePositions(Map<Integer, Long> next, OptionalLong lastAppendMillis) {
        this.next = next;
        this.lastAppendMillis = lastAppendMillis;
    }

    /** The positions of {@code table}'s current snapshot and its ancestors. */
    public static TablePositions of(Table table) {
        Map<Integer, Long> next = new TreeMap<>();
        OptionalLong last = OptionalLong.empty();
        if (table.currentSnapshot() == null) {
            return new TablePositions(next, last);
        }
        for (Snapshot s : SnapshotUtil.currentAncestors(table)) {
            String offsets = s.summary() == null ? null : s.summary().get(NEXT_OFFSETS);
            if (offsets == null) {
                continue;
            }
            if (last.isEmpty() && !KEPT.equals(s.summary().get(JOB))) {
                last = OptionalLong.of(s.timestampMillis());
            }
            decode(offsets).forEach((p, o) -> next.merge(p, o, Math::max));
        }
        return new TablePositions(next, last);
    }

    /** The offset after what the table holds of {@code partition}, if it holds any. */
    public Optional<Long> next(int partition) {
        return Optional.ofNullable(next.get(partition));
    }

    /** Every partition's next offset. */
    public Map<Integer, Long> all() {
        return Collections.unmodifiableMap(next);
    }

    /** When the archiver last appended to the table (epoch milliseconds), if ever. */
    public OptionalLong lastAppendMillis() {
        return lastAppendMillis;
    }

    /** The summary value of {@code offsets} (partition to next offset). */
    static String encode(Map<Integer, Long> offsets) {
        StringBuilder sb = new StringBuilder(offsets.size() * 12);
        new TreeMap<>(offsets).forEach((p, o) -> {
            if (sb.length() > 0) {
                sb.append(',');
            }
            sb.append(p).append('=').append(o);
        });
        return sb.toString();
    }

    static Map<Integer, Long> decode(String value) {
        Map<Integer, Long> out = new HashMap<>();
        if (value.isEmpty()) {
            return out;
        }
        for (String entry : value.split(",")) {
            int eq = entry.indexOf('=');
            out.put(Integer.parseInt(entry.substring(0, eq)), Long.parseLong(entry.substring(eq + 1)));
        }
        return out;
    }
}
