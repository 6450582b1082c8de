package io.archiver.table;

import io.archiver.format.parquet.ParquetFooters;
import io.archiver.sink.files.FileStats;

import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.OverwriteFiles;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.mapping.NameMappingParser;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.stream.Stream;

/**
 * One topic's table, and the one way files get into it: {@link #append} adds the archive's committed files that
 * the table does not hold yet, in one snapshot, with the schema grown by the typed columns they bring in the same
 * commit. Idempotent: a file whose every offset lies below what the table already holds of its partitions
 * ({@link TablePositions}) is passed over, after checking that the table does list it; a file below the table's
 * position that the table does not list, nor lists as replaced by a compaction, means the partition's offsets went back,
 * and is refused, never skipped.
 */
public final class ArchiveTable {

    private static final Logger LOG = LoggerFactory.getLogger(ArchiveTable.class);

    private final Table table;
    private final String name;

    ArchiveTable(Table table, String name) {
        this.table = table;
        this.name = name;
    }

    /** The Iceberg table. */
    public Table table() {
        return table;
    }

    /** Its name in the catalog ({@code namespace.table}). */
    public String name() {
        return name;
    }

    /** What the table holds now. */
    public TablePositions positions() {
        table.refresh();
        return TablePositions.of(table);
    }

    /**
     * Appends those of {@code files} the table does not hold, in one snapshot whose summary carries {@code summary}
     * and the next offset of each partition appended to, reading their footers on {@code pool}.
     *
     * @return what was appended: files and records (zero files: the table held them all)
     */
    public Appended append(List<TableFile> files, Map<String, String> summary, ExecutorService pool) throws IOException {
        TablePositions positions = positions();
        List<TableFile> fresh = new ArrayList<>();
        List<TableFile> held = new ArrayList<>();
        for (TableFile f : files) {
            if (isHeld(f, positions)) {
                held.add(f);
            } else {
                fresh.add(f);
            }
        }
        checkListed(held, positions, pool);
        if (fresh.isEmpty()) {
            return new Appended(0, 0, null);
        }
        Map<TableFile, ParquetMetadata> footers = footers(fresh, pool);
        Transaction tx = table.newTransaction();
        NameMapping mapping = grownFor(tx, footers.values());
        MetricsConfig metricsConfig = MetricsConfig.forTable(table);
        // the pool is the committer's: Iceberg's static worker pool keeps the class loader of the task that first used it
        AppendFiles append = tx.newFastAppend().scanManifestsWith(pool);
        Map<Integer, Long> next = new HashMap<>();
        long records = 0;
        for (TableFile f : fresh) {
            DataFile data = dataFile(f, footers.get(f), mapping, metricsConfig);
            append.appendFile(data);
            records += data.recordCount();
            for (FileStats s : f.ranges()) {
                next.merge(s.partition(), s.lastOffset() + 1, Math::max);
            }
        }
        summary.forEach(append::set);
        append.set(TablePositions.NEXT_OFFSETS, TablePositions.encode(next));
        append.commit();
        try {
            tx.commitTransaction();
        } catch (CommitStateUnknownException e) {
            if (!committedAnyway(summary)) {
                throw e;
            }
        }
        return new Appended(fresh.size(), records, table.currentSnapshot());
    }

    /**
     * Swaps files of the table for others in one snapshot, the schema grown by the new files' columns: {@code removed}
     * (those of them the table lists) go, {@code added} come; the table's offsets are not changed (a repair's files fill
     * gaps below them, or replace files of the same offsets). {@code summary} goes into the snapshot's.
     *
     * @return the snapshot
     */
    public Snapshot replace(List<String> removed, List<TableFile> added, Map<String, String> summary, ExecutorService pool) throws IOException {
        TableState state = TableState.current(table, pool);
        Map<String, DataFile> listed = new HashMap<>();
        state.files().forEach(f -> listed.put(f.location(), f));
        Map<TableFile, ParquetMetadata> footers = footers(added, pool);
        Transaction tx = table.newTransaction();
        NameMapping mapping = grownFor(tx, footers.values());
        MetricsConfig metricsConfig = MetricsConfig.forTable(table);
        OverwriteFiles overwrite = tx.newOverwrite().scanManifestsWith(pool);
        int dropped = 0;
        for (String path : removed) {
            DataFile gone = listed.get(path);
            if (gone != null) {
                overwrite.deleteFile(gone);
                dropped++;
            }
        }
        for (TableFile f : added) {
            overwrite.addFile(dataFile(f, footers.get(f), mapping, metricsConfig));
        }
        if (dropped == 0 && added.isEmpty()) {
            return state.snapshot();
        }
        summary.forEach(overwrite::set);
        overwrite.commit();
        try {
            tx.commitTransaction();
        } catch (CommitStateUnknownException e) {
            TableState now = TableState.current(table, pool);
            boolean done = added.isEmpty() ? removed.stream().noneMatch(now::lists) : now.lists(added.get(0).path());
            if (!done) {
                throw e;
            }
        }
        table.refresh();
        LOG.info("Table {}: {} files replaced by {} ({}), snapshot {}", name, dropped, added.size(), summary, table.currentSnapshot().snapshotId());
        return table.currentSnapshot();
    }

    /**
     * Grows the schema in {@code tx} by the columns of the files of {@code footers} it lacks, and keeps the name mapping
     * up to date (the files have no field ids: readers find their columns through it); returns the mapping.
     */
    private NameMapping grownFor(Transaction tx, java.util.Collection<ParquetMetadata> footers) throws IOException {
        Schema before = table.schema();
        List<Schema> fileSchemas = footers.stream().map(f -> f.getFileMetaData().getSchema()).distinct()
                .map(TableLayout::of).toList();
        Schema after = grown(table.updateSchema(), fileSchemas).apply();
        if (!after.sameSchema(before)) {
            grown(tx.updateSchema(), fileSchemas).commit();
            after = tx.table().schema();
            LOG.info("Table {}: schema grows with the columns of the archive's files, now {} columns", name, after.columns().size());
        }
        String mappingJson = TableLayout.nameMapping(after);
        if (!mappingJson.equals(table.properties().get(TableProperties.DEFAULT_NAME_MAPPING))) {
            tx.updateProperties().set(TableProperties.DEFAULT_NAME_MAPPING, mappingJson).commit();
        }
        return NameMappingParser.fromJson(mappingJson);
    }

    /** The table's data file of {@code f}: its partition from its folders, its metrics from its footer. */
    private DataFile dataFile(TableFile f, ParquetMetadata footer, NameMapping mapping, MetricsConfig metricsConfig) throws IOException {
        TableLayout.Partitioned partitioned = TableLayout.partition(table, f.path(), f.ranges().get(0).partition())
                .orElseThrow(() -> new IOException("No partition spec of table " + name + " fits the folders of " + f.path()
                        + " (spec: " + table.spec() + "): was sink.layout or sink.time-partitioning changed? The table "
                        + "takes a new layout when the job starts with it."));
        return DataFiles.builder(partitioned.spec())
                .withPath(f.path())
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(f.size())
                .withPartition(partitioned.data())
                .withMetrics(ParquetUtil.footerMetrics(footer, Stream.empty(), metricsConfig, mapping))
                .withSplitOffsets(ParquetUtil.getSplitOffsets(footer))
                .build();
    }

    /** {@code update} with the columns of {@code fileSchemas} the table lacks; fails naming the table when they do not fit it. */
    private UpdateSchema grown(UpdateSchema update, List<Schema> fileSchemas) throws IOException {
        for (Schema fileSchema : fileSchemas) {
            try {
                update.unionByNameWith(fileSchema);
            } catch (IllegalArgumentException e) {
                throw new IOException("Cannot add the columns of the archive's files to table " + name + ": " + e.getMessage()
                        + ". The files' columns changed in a way Iceberg's schema evolution does not allow (a record format "
                        + "changed for the same topic?): archive the topic into another table (table.name-prefix) or keep its formats.", e);
            }
        }
        return update;
    }

    /** Whether the table holds every offset of {@code f} (its every partition's range lies below the table's position). */
    private boolean isHeld(TableFile f, TablePositions positions) throws IOException {
        int below = 0;
        for (FileStats s : f.ranges()) {
            if (positions.next(s.partition()).map(n -> s.lastOffset() < n).orElse(false)) {
                below++;
            }
        }
        if (below == 0) {
            return false;
        }
        if (below < f.ranges().size()) {
            throw new IOException("File " + f.path() + " holds offsets some partitions of table " + name
                    + " already hold and others it does not (" + f.ranges() + ", table: " + positions.all() + "): refusing to append it.");
        }
        return true;
    }

    /**
     * Checks that the table lists every file it holds the offsets of (a replay after a restore, a second register).
     * One it does not list means the partition's offsets went back: the topic was deleted and created again, or the
     * Kafka cluster replaced. One scan of the files of the partitions concerned.
     */
    private void checkListed(List<TableFile> held, TablePositions positions, ExecutorService pool) throws IOException {
        if (held.isEmpty()) {
            return;
        }
        List<Integer> partitions = held.stream().flatMap(f -> f.ranges().stream()).map(FileStats::partition).distinct().toList();
        Set<String> listed = new HashSet<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan()
                .planWith(pool)
                .filter(Expressions.in(TableLayout.PARTITION, partitions.toArray()))
                .planFiles()) {
            for (FileScanTask t : tasks) {
                listed.add(t.file().location());
            }
        }
        TableState state = null;
        for (TableFile f : held) {
            if (!listed.contains(f.path())) {
                if (state == null) {
                    state = TableState.current(table, pool);
                }
                if (state.replaced(f.path())) {
                    continue; // compacted since: its records are in the file that replaced it
                }
                FileStats first = f.ranges().get(0);
                throw new IOException(String.format(
                        "Refusing to append %s to table %s: it holds offsets %d..%d of partition %d, below the offset %d the table "
                                + "already holds, but the table does not list it. The partition's offsets went back: was the topic "
                                + "deleted and created again, or the Kafka cluster replaced? Nothing was appended. Archive the new "
                                + "topic into a new sink.path and table (table.name-prefix), or drop the table and register the "
                                + "archive again ('archiver table register') if the archive itself is right.",
                        f.path(), name, first.firstOffset(), first.lastOffset(), first.partition(), positions.next(first.partition()).orElse(-1L)));
            }
        }
    }

    /** After a commit whose outcome is unknown: whether a snapshot with exactly this summary's checkpoint and job is there. */
    private boolean committedAnyway(Map<String, String> summary) {
        table.refresh();
        return table.currentSnapshot() != null
                && summary.get(TablePositions.CHECKPOINT) != null
                && summary.get(TablePositions.CHECKPOINT).equals(table.currentSnapshot().summary().get(TablePositions.CHECKPOINT))
                && String.valueOf(summary.get(TablePositions.JOB)).equals(table.currentSnapshot().summary().get(TablePositions.JOB));
    }

    private static Map<TableFile, ParquetMetadata> footers(List<TableFile> files, ExecutorService pool) throws IOException {
        Map<String, Long> sizes = new LinkedHashMap<>();
        files.forEach(f -> sizes.put(f.path(), f.size()));
        Map<String, ParquetMetadata> read = ParquetFooters.readFooters(sizes, pool);
        Map<TableFile, ParquetMetadata> out = new LinkedHashMap<>();
        files.forEach(f -> out.put(f, read.get(f.path())));
        return out;
    }

    /** What one append added: files, records, and the snapshot (null when nothing was added). */
    public record Appended(int files, long records, Snapshot snapshot) {}
}
