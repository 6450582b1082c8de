package io.archiver.table;

import io.archiver.archive.ArchiveLayout;
import io.archiver.archive.ArchiveRoot;
import io.archiver.config.TimePartitioning;
import io.archiver.format.parquet.ParquetConcatenation;
import io.archiver.format.parquet.ParquetFooters;
import io.archiver.fs.MetadataObjects;
import io.archiver.position.PositionRecord;
import io.archiver.position.PositionRecovery;

import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.mapping.NameMappingParser;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.iceberg.util.SnapshotUtil;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.stream.Stream;

/**
 * Compaction of a topic's table: the small files of each closed record-time folder (its end plus {@code closedAfter}
 * past) are concatenated, in offset order, into files of at most the target size, written into the same folder (named
 * {@value TableState#COMPACTED_PREFIX}…) and swapped for them in one replace snapshot. The records keep their bytes,
 * envelope and typed columns ({@link ParquetConcatenation}); readers through the table ({@link TableArchiveFiles}) read
 * the new files instead of the old, which stay in the folders until {@code table expire} removes them.
 *
 * <p>Left alone: folders without a record time ({@code sink.time-partitioning: none}: never closed), files of the target
 * size or more, and the files the archive's position records name (a start without state checks that those exist).
 * The live job's appends do not conflict with the replace (Iceberg retries the commit on the newer metadata); a
 * compaction or expiry that removed the same files meanwhile fails it, loudly, and the new files are deleted. A commit
 * whose outcome is unknown is settled by reading the table; if that cannot tell, the new files stay as a cut-short
 * compaction's outputs, never read, removed by {@code table expire}.
 */
public final class TableCompaction {

    private static final Logger LOG = LoggerFactory.getLogger(TableCompaction.class);
    /** Summary value of {@link TablePositions#JOB} of a compaction's snapshot. */
    static final String JOB = "compact";

    /** How large compacted files grow, and how long after its end a record-time folder counts as closed. */
    public record Settings(long targetFileSize, Duration closedAfter) {}

    /** What one table's compaction did (or, dry, would do). */
    public record Result(String table, int folders, int filesReplaced, int filesWritten, long records, long bytes, long snapshot) {}

    private TableCompaction() {}

    /** The files the archive's position records name now: left alone by compaction. */
    public static Set<String> namedByPositions(ArchiveRoot root) throws IOException {
        Set<String> named = new HashSet<>();
        for (PositionRecord r : new PositionRecovery(root).read().all()) {
            r.files().forEach(f -> named.add(f.path()));
        }
        return named;
    }

    /**
     * Compacts {@code table} as {@code settings} say at {@code now}, leaving the files {@code pinned} names alone;
     * {@code dry}: only says what it would do.
     */
    public static Result compact(ArchiveTable table, Set<String> pinned, Settings settings, Instant now, boolean dry, ExecutorService pool)
            throws IOException {
        Plan plan = plan(table, pinned, settings, now, pool);
        return dry ? plan.result() : plan.apply(pool);
    }

    /**
     * What compacting {@code table} now means: which files of the current snapshot go into which new file. Nothing is
     * written until {@link Plan#apply}; a plan applied after the table changed commits only if none of its files was
     * removed meanwhile.
     */
    public static Plan plan(ArchiveTable table, Set<String> pinned, Settings settings, Instant now, ExecutorService pool) throws IOException {
        TableState state = TableState.current(table.table(), pool);
        Map<String, List<DataFile>> byFolder = new TreeMap<>();
        for (DataFile f : state.files()) {
            String location = f.location();
            if (f.fileSizeInBytes() < settings.targetFileSize() && !pinned.contains(location) && closed(location, settings.closedAfter(), now)) {
                byFolder.computeIfAbsent(location.substring(0, location.lastIndexOf('/')), d -> new ArrayList<>()).add(f);
            }
        }
        byFolder.values().removeIf(files -> files.size() < 2);
        Map<String, Long> sizes = new LinkedHashMap<>();
        byFolder.values().forEach(files -> files.forEach(f -> sizes.put(f.location(), f.fileSizeInBytes())));
        Map<String, ParquetMetadata> footers = sizes.isEmpty() ? Map.of() : ParquetFooters.readFooters(sizes, pool);

        List<List<DataFile>> outputs = new ArrayList<>();
        for (List<DataFile> folder : byFolder.values()) {
            Map<String, List<DataFile>> kinds = new LinkedHashMap<>();
            folder.forEach(f -> kinds.computeIfAbsent(ParquetConcatenation.sameKind(footers.get(f.location())), k -> new ArrayList<>()).add(f));
            for (List<DataFile> kind : kinds.values()) {
                outputs.addAll(chunks(inOffsetOrder(kind, footers), settings.targetFileSize()));
            }
        }
        outputs.removeIf(chunk -> chunk.size() < 2);
        return new Plan(table, state, outputs, footers);
    }

    /** The files of one table's current snapshot a compaction concatenates, chunk by chunk (a new file each). */
    public static final class Plan {

        private final ArchiveTable table;
        private final TableState state;
        private final List<List<DataFile>> chunks;
        private final Map<String, ParquetMetadata> footers;

        private Plan(ArchiveTable table, TableState state, List<List<DataFile>> chunks, Map<String, ParquetMetadata> footers) {
            this.table = table;
            this.state = state;
            this.chunks = chunks;
            this.footers = footers;
        }

        /** What applying it would do (no snapshot). */
        public Result result() {
            return result(chunks.size(), -1);
        }

        private Result result(int written, long snapshot) {
            int replaced = chunks.stream().mapToInt(List::size).sum();
            long records = chunks.stream().flatMap(List::stream).mapToLong(DataFile::recordCount).sum();
            long bytes = chunks.stream().flatMap(List::stream).mapToLong(DataFile::fileSizeInBytes).sum();
            int folders = (int) chunks.stream().map(c -> folderOf(c.get(0).location())).distinct().count();
            return new Result(table.name(), folders, replaced, written, records, bytes, snapshot);
        }

        /**
         * Writes the new files and swaps them for the old in one replace snapshot. Fails, its files deleted, if another
         * compaction or an expiry removed one of the old files since the plan was made.
         */
        public Result apply(ExecutorService pool) throws IOException {
            if (chunks.isEmpty()) {
                return result(0, -1);
            }
            List<DataFile> written = new ArrayList<>();
            try {
                for (List<DataFile> chunk : chunks) {
                    written.add(write(table.table(), chunk, footers));
                }
            } catch (IOException | RuntimeException e) {
                deleteQuietly(written);
                throw e;
            }
            long snapshot = commit(table, state, chunks, written, pool);
            Result result = result(written.size(), snapshot);
            LOG.info("Table {}: compacted {} files of {} folders into {} ({} records, {} bytes), snapshot {}",
                    table.name(), result.filesReplaced(), result.folders(), written.size(), result.records(), result.bytes(), snapshot);
            return result;
        }
    }

    /** Whether the record-time folder {@code location} lies in ended {@code closedAfter} before {@code now}. */
    static boolean closed(String location, Duration closedAfter, Instant now) {
        ArchiveLayout.TimeFolder folder = ArchiveLayout.timeFolderOf(location);
        return folder.time() != TimePartitioning.NONE
                && ArchiveLayout.timeFolderEnd(folder.start(), folder.time()) + closedAfter.toMillis() <= now.toEpochMilli();
    }

    private static String folderOf(String location) {
        return location.substring(0, location.lastIndexOf('/'));
    }

    /**
     * {@code files} in an order that keeps every partition's offsets ascending: a file comes after every file holding
     * earlier offsets of a partition it holds. Files whose offsets of a partition overlap are refused (the archive would
     * hold those records twice: audit says more).
     */
    static List<DataFile> inOffsetOrder(List<DataFile> files, Map<String, ParquetMetadata> footers) throws IOException {
        Map<DataFile, Map<Integer, long[]>> ranges = new LinkedHashMap<>();
        for (DataFile f : files) {
            ranges.put(f, rangesOf(f.location(), footers.get(f.location())));
        }
        Map<DataFile, List<DataFile>> after = new HashMap<>();
        Map<DataFile, Integer> before = new HashMap<>();
        files.forEach(f -> before.put(f, 0));
        for (int i = 0; i < files.size(); i++) {
            for (int j = i + 1; j < files.size(); j++) {
                DataFile a = files.get(i);
                DataFile b = files.get(j);
                Boolean aFirst = order(ranges.get(a), ranges.get(b), a, b);
                if (aFirst != null) {
                    DataFile first = aFirst ? a : b;
                    DataFile second = aFirst ? b : a;
                    after.computeIfAbsent(first, k -> new ArrayList<>()).add(second);
                    before.merge(second, 1, Integer::sum);
                }
            }
        }
        PriorityQueue<DataFile> ready = new PriorityQueue<>(Comparator.comparing(DataFile::location));
        before.forEach((f, n) -> {
            if (n == 0) {
                ready.add(f);
            }
        });
        List<DataFile> ordered = new ArrayList<>(files.size());
        while (!ready.isEmpty()) {
            DataFile f = ready.poll();
            ordered.add(f);
            for (DataFile next : after.getOrDefault(f, List.of())) {
                if (before.merge(next, -1, Integer::sum) == 0) {
                    ready.add(next);
                }
            }
        }
        if (ordered.size() != files.size()) {
            throw new IOException("The offsets of files in " + folderOf(files.get(0).location()) + " cannot be put in one order: not compacted");
        }
        return ordered;
    }

    /** Whether {@code a} holds a shared partition's earlier offsets (true), later ones (false), or they share none (null). */
    private static Boolean order(Map<Integer, long[]> a, Map<Integer, long[]> b, DataFile fa, DataFile fb) throws IOException {
        Boolean aFirst = null;
        for (Map.Entry<Integer, long[]> pa : a.entrySet()) {
            long[] rb = b.get(pa.getKey());
            if (rb == null) {
                continue;
            }
            long[] ra = pa.getValue();
            boolean first = ra[1] < rb[0];
            if ((!first && rb[1] >= ra[0]) || (aFirst != null && aFirst != first)) {
                throw new IOException(String.format("%s and %s hold overlapping offsets of partition %d (%d..%d and %d..%d): not compacted; "
                        + "`audit` says which records the archive holds twice", fa.location(), fb.location(), pa.getKey(), ra[0], ra[1], rb[0], rb[1]));
            }
            aFirst = first;
        }
        return aFirst;
    }

    /** Partition to {first offset, last offset, records} of a file, from its footer. */
    private static Map<Integer, long[]> rangesOf(String location, ParquetMetadata footer) throws IOException {
        Map<Integer, long[]> shared = ParquetFooters.sharedFilePartitions(footer);
        if (!shared.isEmpty()) {
            return shared;
        }
        int partition = ArchiveLayout.partitionOf(location).orElseThrow(() -> new IOException("No partition folder in " + location)).partition();
        long[] stats = ParquetFooters.offsetStatistics(footer);
        if (stats == null) {
            throw new IOException(location + ": no offset statistics in its footer, not compacted");
        }
        return Map.of(partition, stats);
    }

    /** Consecutive runs of {@code ordered} of at most {@code target} bytes together. */
    private static List<List<DataFile>> chunks(List<DataFile> ordered, long target) {
        List<List<DataFile>> chunks = new ArrayList<>();
        List<DataFile> chunk = new ArrayList<>();
        long size = 0;
        for (DataFile f : ordered) {
            if (!chunk.isEmpty() && size + f.fileSizeInBytes() > target) {
                chunks.add(chunk);
                chunk = new ArrayList<>();
                size = 0;
            }
            chunk.add(f);
            size += f.fileSizeInBytes();
        }
        if (!chunk.isEmpty()) {
            chunks.add(chunk);
        }
        return chunks;
    }

    /** Writes {@code chunk} as one file next to it; returns it as the table's data file, after checking its records. */
    private static DataFile write(Table table, List<DataFile> chunk, Map<String, ParquetMetadata> footers) throws IOException {
        String first = chunk.get(0).location();
        String name = first.substring(first.lastIndexOf('/') + 1);
        Path path = new Path(folderOf(first) + "/" + TableState.COMPACTED_PREFIX + UUID.randomUUID() + name.substring(name.indexOf('.')));
        List<ParquetConcatenation.Input> inputs = new ArrayList<>();
        long expected = 0;
        for (DataFile f : chunk) {
            inputs.add(new ParquetConcatenation.Input(new Path(f.location()), f.fileSizeInBytes(), footers.get(f.location())));
            expected += f.recordCount();
        }
        FileSystem fs = path.getFileSystem();
        try (FSDataOutputStream out = fs.create(path, FileSystem.WriteMode.NO_OVERWRITE)) {
            ParquetConcatenation.concatenate(inputs, out);
        }
        MetadataObjects.failIfInterrupted(path);
        long length = fs.getFileStatus(path).getLen();
        ParquetMetadata footer = ParquetFooters.readFooter(path, length);
        long records = footer.getBlocks().stream().mapToLong(b -> b.getRowCount()).sum();
        if (records != expected) {
            fs.delete(path, false);
            throw new IOException(path + " holds " + records + " records, its " + chunk.size() + " inputs " + expected + ": not compacted");
        }
        NameMapping mapping = NameMappingParser.fromJson(table.properties().get(TableProperties.DEFAULT_NAME_MAPPING));
        DataFile input = chunk.get(0);
        return DataFiles.builder(table.specs().get(input.specId()))
                .withPath(path.toString())
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(length)
                .withPartition(input.partition())
                .withMetrics(ParquetUtil.footerMetrics(footer, Stream.empty(), MetricsConfig.forTable(table), mapping))
                .withSplitOffsets(ParquetUtil.getSplitOffsets(footer))
                .build();
    }

    /** Swaps the chunks for the files written of them in one replace snapshot; returns its id. */
    private static long commit(ArchiveTable table, TableState state, List<List<DataFile>> chunks, List<DataFile> written, ExecutorService pool)
            throws IOException {
        RewriteFiles rewrite = table.table().newRewrite()
                .validateFromSnapshot(state.snapshot().snapshotId())
                .scanManifestsWith(pool);
        chunks.forEach(chunk -> chunk.forEach(rewrite::deleteFile));
        written.forEach(rewrite::addFile);
        rewrite.set(TablePositions.JOB, JOB);
        try {
            rewrite.commit();
        } catch (ValidationException | CommitFailedException e) {
            deleteQuietly(written);
            throw new IOException("Compaction of table " + table.name() + " not committed: " + e.getMessage()
                    + ". Another compaction or an expiry changed the same files meanwhile; nothing changed, the files written are "
                    + "deleted. Run compact again (one compaction per table at a time).", e);
        } catch (CommitStateUnknownException e) {
            TableState now = TableState.current(table.table(), pool);
            if (!now.lists(written.get(0).location())) {
                throw new IOException("Compaction of table " + table.name() + ": the catalog did not say whether it committed, and "
                        + "the table does not list its files. They stay unread as a cut-short compaction's outputs (`table expire` "
                        + "removes them); run compact again.", e);
            }
        }
        table.table().refresh();
        // the live job may have appended since: ours is the newest compaction's snapshot
        for (Snapshot s : SnapshotUtil.currentAncestors(table.table())) {
            if (DataOperations.REPLACE.equals(s.operation()) && JOB.equals(s.summary().get(TablePositions.JOB))) {
                return s.snapshotId();
            }
        }
        return table.table().currentSnapshot().snapshotId();
    }

    private static void deleteQuietly(List<DataFile> files) {
        for (DataFile f : files) {
            try {
                Path p = new Path(f.location());
                p.getFileSystem().delete(p, false);
            } catch (IOException e) {
                LOG.warn("Cannot delete {}, written by a compaction that did not commit (`table expire` removes it): {}", f.location(), e.toString());
            }
        }
    }
}
