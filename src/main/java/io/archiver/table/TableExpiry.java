package io.archiver.table;

import io.archiver.archive.ArchiveFile;
import io.archiver.archive.ArchiveFileReader;
import io.archiver.archive.ArchiveListing;
import io.archiver.record.PayloadFormats;

import org.apache.flink.core.fs.Path;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Expiry of a topic's table: snapshots older than the retention go (the newest {@code retainLast} always stay), and
 * with them the files only they reference: the files compactions replaced. Before, the offsets that only those snapshots
 * name are kept in a snapshot of their own ({@link TablePositions#KEPT}), so that a start without state and every later
 * append still know what the table holds. The outputs of a compaction cut short before its commit (never listed by a
 * retained snapshot, below the table's offsets, older than the retention) are deleted too.
 */
public final class TableExpiry {

    private static final Logger LOG = LoggerFactory.getLogger(TableExpiry.class);

    /** What one table's expiry did (or, dry, would do). */
    public record Result(String table, int snapshotsExpired, int dataFilesDeleted, int abandonedDeleted) {}

    private TableExpiry() {}

    /**
     * Expires the snapshots of {@code table} older than {@code retention} at {@code now}, keeping the newest
     * {@code retainLast}; {@code folders}: the archive's folders as listed, for the outputs of cut-short compactions.
     */
    public static Result expire(ArchiveTable table, Duration retention, int retainLast, Instant now, ArchiveListing folders, boolean dry,
            ExecutorService pool) throws IOException {
        Table t = table.table();
        t.refresh();
        long cutoff = now.minus(retention).toEpochMilli();
        List<Snapshot> ancestors = new ArrayList<>();
        SnapshotUtil.currentAncestors(t).forEach(ancestors::add);
        List<Snapshot> kept = new ArrayList<>();
        for (int i = 0; i < ancestors.size(); i++) {
            if (i < retainLast || ancestors.get(i).timestampMillis() >= cutoff) {
                kept.add(ancestors.get(i));
            }
        }
        List<String> abandoned = abandoned(TableState.current(t, pool), folders, cutoff);
        if (dry) {
            return new Result(table.name(), count(t) - kept.size(), 0, abandoned.size());
        }
        keepOffsets(t, kept);
        AtomicInteger dataFiles = new AtomicInteger();
        int before = count(t);
        t.expireSnapshots()
                .expireOlderThan(cutoff)
                .retainLast(Math.max(1, retainLast))
                .executeDeleteWith(pool)
                .deleteWith(location -> {
                    if (location.endsWith(".parquet") && !location.contains("/metadata/")) {
                        dataFiles.incrementAndGet();
                    }
                    t.io().deleteFile(location);
                })
                .commit();
        t.refresh();
        int expired = before - count(t);
        for (String location : abandoned) {
            Path p = new Path(location);
            p.getFileSystem().delete(p, false);
        }
        LOG.info("Table {}: expired {} snapshots older than {}, deleted {} data files only they referenced and {} outputs of "
                + "cut-short compactions", table.name(), expired, Instant.ofEpochMilli(cutoff), dataFiles.get(), abandoned.size());
        return new Result(table.name(), expired, dataFiles.get(), abandoned.size());
    }

    private static int count(Table t) {
        int n = 0;
        for (Snapshot ignored : t.snapshots()) {
            n++;
        }
        return n;
    }

    /**
     * Commits a snapshot that names every partition's offset when the snapshots {@code kept} alone would name less than
     * the table holds (the others are about to expire).
     */
    private static void keepOffsets(Table t, List<Snapshot> kept) {
        Map<Integer, Long> all = TablePositions.of(t).all();
        Map<Integer, Long> remaining = new HashMap<>();
        for (Snapshot s : kept) {
            String offsets = s.summary() == null ? null : s.summary().get(TablePositions.NEXT_OFFSETS);
            if (offsets != null) {
                TablePositions.decode(offsets).forEach((p, o) -> remaining.merge(p, o, Math::max));
            }
        }
        if (!remaining.equals(all)) {
            t.newFastAppend()
                    .set(TablePositions.NEXT_OFFSETS, TablePositions.encode(all))
                    .set(TablePositions.JOB, TablePositions.KEPT)
                    .commit();
        }
    }

    /** The outputs of cut-short compactions in {@code folders}: named so, not listed, below the table's offsets, older than {@code cutoff}. */
    private static List<String> abandoned(TableState state, ArchiveListing folders, long cutoff) throws IOException {
        ArchiveFileReader reader = new ArchiveFileReader(PayloadFormats.BYTES);
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, List<ArchiveFile>> f : ArchiveFile.byPath(folders.committed().stream()
                .filter(f -> TableState.isMaintenanceOutput(f.path().toString()) && f.modificationTime() < cutoff).toList()).entrySet()) {
            if (!state.lists(f.getKey()) && !state.replaced(f.getKey()) && state.below(f.getValue(), reader)) {
                out.add(f.getKey());
            }
        }
        return out;
    }
}
