package io.archiver.table;

import io.archiver.archive.ArchiveFile;
import io.archiver.archive.ArchiveFileReader;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;

/**
 * What a topic's table holds at its current snapshot: its data files, the next offset of each partition
 * ({@link TablePositions}), and on demand the files compaction replaced that retained snapshots still reference
 * (they stay in the folders until {@code expire} removes them). A folder file the table does not list is then one of:
 * the next snapshot's (its offsets from the table's position on), a replaced one, the output of a compaction, repair
 * or erasure cut short before its table commit (named {@value #COMPACTED_PREFIX}…, …{@value #REPAIR_MARKER}… or
 * …{@value #ERASURE_MARKER}…), or a file the table lacks.
 */
public final class TableState {

    /** The name every file a compaction writes starts with. */
    public static final String COMPACTED_PREFIX = "compacted-";
    /** What the name of every data file a repair writes holds. */
    public static final String REPAIR_MARKER = "-repair-";
    /** What the name of every data file an erasure writes in place of a table's file holds. */
    public static final String ERASURE_MARKER = "-erased-";

    private final Table table;
    private final Snapshot snapshot;
    private final List<DataFile> files;
    private final Set<String> locations;
    private final TablePositions positions;
    private Set<String> replaced;

    private TableState(Table table, Snapshot snapshot, List<DataFile> files, TablePositions positions) {
        this.table = table;
        this.snapshot = snapshot;
        this.files = Collections.unmodifiableList(files);
        Set<String> paths = new HashSet<>();
        files.forEach(f -> paths.add(f.location()));
        this.locations = Collections.unmodifiableSet(paths);
        this.positions = positions;
    }

    /** The table as it is now, its files planned on {@code pool}. */
    public static TableState current(Table table, ExecutorService pool) throws IOException {
        table.refresh();
        Snapshot snapshot = table.currentSnapshot();
        List<DataFile> files = new ArrayList<>();
        if (snapshot != null) {
            try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(snapshot.snapshotId()).planWith(pool).planFiles()) {
                tasks.forEach(t -> files.add(t.file().copyWithoutStats()));
            }
        }
        return new TableState(table, snapshot, files, TablePositions.of(table));
    }

    /** The snapshot this is the state of; null for a table without one. */
    public Snapshot snapshot() {
        return snapshot;
    }

    /** The data files of the snapshot. */
    public List<DataFile> files() {
        return files;
    }

    public TablePositions positions() {
        return positions;
    }

    /** Whether the snapshot lists the file at {@code location}. */
    public boolean lists(String location) {
        return locations.contains(location);
    }

    /**
     * Whether a file the table does not list holds offsets below what the table holds of their partitions (the table
     * moved past it) rather than after (the next snapshot's). {@code shares}: the file's, one per partition.
     */
    public boolean below(List<ArchiveFile> shares, ArchiveFileReader reader) throws IOException {
        for (ArchiveFile share : shares) {
            long[] stats = share.offsetStatistics(reader);
            if (stats != null && positions.next(share.partition()).map(n -> stats[1] < n).orElse(false)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a retained snapshot removed the file from the table: a compaction replaced it, or a repair rewrote it (a
     * repair cut short after its table commit may leave it in the folders). Its records the table holds elsewhere, or
     * were to drop.
     */
    public boolean replaced(String location) {
        if (replaced == null) {
            Set<String> paths = new HashSet<>();
            for (Snapshot s : table.snapshots()) {
                if (!DataOperations.APPEND.equals(s.operation())) {
                    s.removedDataFiles(table.io()).forEach(f -> paths.add(f.location()));
                }
            }
            replaced = paths;
        }
        return replaced.contains(location);
    }

    /**
     * Whether a file is named as a compaction's, a repair's or an erasure's output: one the table does not list and never
     * replaced was written by one cut short before its table commit.
     */
    public static boolean isMaintenanceOutput(String location) {
        String name = location.substring(location.lastIndexOf('/') + 1);
        return name.startsWith(COMPACTED_PREFIX) || name.contains(REPAIR_MARKER) || name.contains(ERASURE_MARKER);
    }
}
