package io.archiver.table;

import io.archiver.archive.ArchiveFile;
import io.archiver.archive.ArchiveFileReader;
import io.archiver.archive.ArchiveListing;
import io.archiver.record.PayloadFormats;

import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.util.SnapshotUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Expiry of a topic's table: snapshots older than the retention go (the newest {@code retainLast} always stay), and
 * with them the files only they reference: the files compactions replaced. Before, the offsets that only those snapshots
 * name are kept in a snapshot of their own ({@link TablePositions#KEPT}), so that a start without state and every later
 * append still know what the table holds. The outputs of a compaction cut short before its commit (never listed by a
 * retained snapshot, below the table's offsets, older than the retention) are deleted too, and so are the table's
 * metadata files nothing references any more (commits that lost a race or were cut short; older than the retention and
 * than {@link #ORPHAN_MIN_AGE}).
 */
public final class TableExpiry {

    private static final Logger LOG = LoggerFactory.getLogger(TableExpiry.class);

    /** What one table's expiry did (or, dry, would do). */
    public record Result(String table, int snapshotsExpired, int dataFilesDeleted, int abandonedDeleted, int orphanedMetadataDeleted) {}

    /**
     * How old a metadata file no retained snapshot or metadata version references must be before it is deleted as
     * orphaned, whatever the retention: a commit in flight writes its manifests before the catalog names them.
     */
    static final Duration ORPHAN_MIN_AGE = Duration.ofHours(1);

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
        long orphanCutoff = Math.min(cutoff, now.minus(ORPHAN_MIN_AGE).toEpochMilli());
        if (dry) {
            return new Result(table.name(), count(t) - kept.size(), 0, abandoned.size(), orphanedMetadata(t, orphanCutoff).size());
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
        List<Path> orphans = orphanedMetadata(t, orphanCutoff);
        for (Path p : orphans) {
            p.getFileSystem().delete(p, false);
        }
        LOG.info("Table {}: expired {} snapshots older than {}, deleted {} data files only they referenced, {} outputs of "
                + "cut-short compactions and {} orphaned metadata files", table.name(), expired, Instant.ofEpochMilli(cutoff),
                dataFiles.get(), abandoned.size(), orphans.size());
        return new Result(table.name(), expired, dataFiles.get(), abandoned.size(), orphans.size());
    }

    /**
     * The files of the table's metadata folder older than {@code cutoff} that neither its metadata (current and the
     * previous versions it keeps) nor any of its snapshots (manifest lists, manifests, statistics) references: those of
     * commits that lost a race or were cut short.
     */
    private static List<Path> orphanedMetadata(Table t, long cutoff) throws IOException {
        TableMetadata metadata = ((HasTableOperations) t).operations().current();
        Set<String> referenced = new HashSet<>();
        referenced.add(metadata.metadataFileLocation());
        metadata.previousFiles().forEach(entry -> referenced.add(entry.file()));
        for (Snapshot snapshot : metadata.snapshots()) {
            referenced.add(snapshot.manifestListLocation());
            snapshot.allManifests(t.io()).forEach(manifest -> referenced.add(manifest.path()));
        }
        metadata.statisticsFiles().forEach(f -> referenced.add(f.path()));
        metadata.partitionStatisticsFiles().forEach(f -> referenced.add(f.path()));
        Path folder = new Path(t.properties().getOrDefault(TableProperties.WRITE_METADATA_LOCATION, t.location() + "/metadata"));
        FileStatus[] listed;
        try {
            listed = folder.getFileSystem().listStatus(folder);
        } catch (FileNotFoundException e) {
            return List.of();
        }
        listed = listed == null ? new FileStatus[0] : listed;
        if (Arrays.stream(listed).noneMatch(f -> f.getPath().toString().equals(metadata.metadataFileLocation()))) {
            // the listing names files otherwise than the table does: nothing can be told orphaned
            LOG.warn("Table {}: its metadata folder {} does not list its current metadata file {} by that name; orphaned metadata "
                    + "files are left", t.name(), folder, metadata.metadataFileLocation());
            return List.of();
        }
        List<Path> orphans = new ArrayList<>();
        for (FileStatus f : listed) {
            if (!f.isDir() && f.getModificationTime() < cutoff && !referenced.contains(f.getPath().toString())) {
                orphans.add(f.getPath());
            }
        }
        return orphans;
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
