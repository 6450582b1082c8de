package io.archiver.erase;

import io.archiver.archive.ArchiveFile;
import io.archiver.archive.ArchiveFileReader;
import io.archiver.archive.ArchiveFiles;
import io.archiver.archive.ArchiveLayout;
import io.archiver.archive.ArchiveRoot;
import io.archiver.config.ArchiverConfig;
import io.archiver.format.FileFormat;
import io.archiver.format.FileFormats;
import io.archiver.format.FormatReader;
import io.archiver.fs.IoThreads;
import io.archiver.position.PositionRecord;
import io.archiver.position.PositionRecovery;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;
import io.archiver.table.ArchiveCatalog;
import io.archiver.table.ArchiveTable;
import io.archiver.table.TableArchiveFiles;
import io.archiver.table.TableFile;
import io.archiver.table.TablePositions;
import io.archiver.table.TableSettings;
import io.archiver.table.TableState;

import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;

import static io.archiver.config.SinkOptions.SINK_PART_PREFIX;

/**
 * Erases records from an archive: finds the files holding the records an {@link ErasureRequest} selects (the archive's
 * files as its readers find them, and the dead letters), and, once the {@link ErasureLog} records them, writes each
 * such file anew without them ({@link FileFormat#copyWithout}: every other record as it was).
 *
 * <p>Without tables a file is replaced in place: on S3 the new object replaces the old when its upload completes (a
 * reader sees the one or the other), on a local file system through a rename. With tables ({@code table.format:
 * iceberg}), which list each file's size and statistics, the new file gets a name of its own
 * (…{@value TableState#ERASURE_MARKER}…), one replace snapshot per topic swaps the files, then the old ones are deleted:
 * a reader through the table meets the one or the other, a new file whose commit was cut short is never read, and an
 * old file a cut-short erasure left is deleted by the next run. A crash leaves each file as before or as after;
 * running the erasure again finishes it, and erasing what is gone already finds nothing. A job restored from a
 * checkpoint or savepoint taken before commits its last files again, and finds those an erasure rewrote since
 * committed ({@link ErasureLog#rewrittenFiles()}).
 */
public final class ArchiveEraser {

    private final ArchiverConfig config;
    private final ArchiveRoot root;
    private final Optional<TableSettings> tables;

    public ArchiveEraser(ArchiverConfig config) {
        this.config = config;
        this.root = ArchiveRoot.of(config);
        this.tables = TableSettings.of(config);
    }

    /** Finds what {@code request} erases now. */
    public ErasurePlan plan(ErasureRequest request) throws IOException {
        List<ErasurePlan.FileErasure> found = new ArrayList<>();
        Search search = new Search(request);
        List<byte[]> keys = request.keys();
        ArchiveFileReader reader = new ArchiveFileReader(PayloadFormats.of(config));
        for (Map.Entry<String, List<ArchiveFile>> file : ArchiveFile.byPath(TableArchiveFiles.of(config).list().committed()).entrySet()) {
            find(file.getValue().get(0), false, reader, request, keys, found, search);
        }
        ArchiveFileReader deadLetters = new ArchiveFileReader(PayloadFormats.BYTES);
        for (ArchiveFile file : ArchiveFiles.listed(ArchiveRoot.of(config.deadLetterPath())).list().committed()) {
            find(file, true, deadLetters, request, keys, found, search);
        }
        return new ErasurePlan(found, cutShort(), replacedLeft(), search.summary());
    }

    /** Finds the records of {@code file} to erase (by key, then by each typed column asked), counted in {@code search}. */
    private static void find(ArchiveFile file, boolean deadLetters, ArchiveFileReader reader, ErasureRequest request, List<byte[]> keys,
            List<ErasurePlan.FileErasure> found, Search search) throws IOException {
        if (!request.covers(file.topic())) {
            return;
        }
        Map<Integer, NavigableMap<Long, Long>> records = new TreeMap<>();
        Consumer<ArchiveRecord> add = r -> records.computeIfAbsent(r.getPartition(), p -> new TreeMap<>()).put(r.getOffset(), r.getTimestamp());
        search.files++;
        if (!keys.isEmpty() && !reader.readKeys(file.path(), keys, request.beforeMillis(), r -> {
            if (request.selects(r)) {
                add.accept(r);
            }
        })) {
            search.readWhole++;
        }
        for (Map.Entry<String, Set<String>> where : request.where().entrySet()) {
            FormatReader.ColumnSearch searched = reader.readWhere(file.path(), where.getKey(), where.getValue(), request.beforeMillis(), add);
            search.column(where.getKey(), searched, file.path().toString());
        }
        if (!records.isEmpty()) {
            found.add(new ErasurePlan.FileErasure(file.path(), file.topic(), deadLetters, records));
        }
    }

    /** How the files were searched: by key through an index or record by record, by each typed column or not at all. */
    private static final class Search {
        int files;
        int readWhole;
        final Set<String> columnsNowhere;
        final Set<String> untyped = new TreeSet<>();

        Search(ErasureRequest request) {
            columnsNowhere = new TreeSet<>(request.where().keySet());
        }

        void column(String column, FormatReader.ColumnSearch searched, String file) {
            if (searched == FormatReader.ColumnSearch.SEARCHED) {
                columnsNowhere.remove(column);
            } else if (searched == FormatReader.ColumnSearch.UNTYPED) {
                untyped.add(file);
            }
        }

        ErasurePlan.Search summary() {
            return new ErasurePlan.Search(files, readWhole, List.copyOf(untyped), Set.copyOf(columnsNowhere));
        }
    }

    /** The files the position records name (each partition's last commit) that are not in the archive yet. */
    private List<String> cutShort() throws IOException {
        Set<String> missing = new TreeSet<>();
        for (PositionRecord r : new PositionRecovery(root).read().all()) {
            for (PositionRecord.PendingFile f : r.files()) {
                Path path = new Path(f.path());
                if (!path.getFileSystem().exists(path)) {
                    missing.add(f.path());
                }
            }
        }
        return new ArrayList<>(missing);
    }

    /** With tables: files earlier erasures swapped out of their table that are still in the archive (cut short before deleting them). */
    private List<String> replacedLeft() throws IOException {
        if (tables.isEmpty()) {
            return List.of();
        }
        List<String> left = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(2, IoThreads.daemon("erase-tables"));
        try (ArchiveCatalog catalog = ArchiveCatalog.open(tables.get())) {
            Map<String, TableState> states = new TreeMap<>();
            for (String file : new ErasureLog(root).rewrittenFiles()) {
                Path path = new Path(file);
                Optional<String> topic = ArchiveLayout.topicOf(path.toUri().getPath());
                if (topic.isEmpty() || !path.getFileSystem().exists(path) || !catalog.exists(topic.get())) {
                    continue;
                }
                TableState state = states.get(topic.get());
                if (state == null) {
                    state = TableState.current(catalog.table(topic.get()).table(), pool);
                    states.put(topic.get(), state);
                }
                if (!state.lists(file) && state.replaced(file)) {
                    left.add(file);
                }
            }
        } finally {
            pool.shutdownNow();
        }
        return left;
    }

    /**
     * Writes every file of {@code plan} anew without its records to erase (erasure {@code id}: its name in the tables'
     * snapshots); returns how many records were left out.
     */
    public long apply(ErasurePlan plan, String id) throws IOException {
        long erased = 0;
        Map<String, List<String>> removed = new LinkedHashMap<>();
        Map<String, List<TableFile>> added = new LinkedHashMap<>();
        for (ErasurePlan.FileErasure f : plan.files()) {
            if (tables.isEmpty() || f.deadLetters()) {
                erased += write(f, f.path());
                continue;
            }
            Path aside = aside(f.path());
            erased += write(f, aside);
            removed.computeIfAbsent(f.topic(), t -> new ArrayList<>()).add(f.path().toString());
            added.computeIfAbsent(f.topic(), t -> new ArrayList<>()).add(TableFile.fromFooter(aside, aside.getFileSystem().getFileStatus(aside).getLen()));
        }
        if (!removed.isEmpty()) {
            ExecutorService pool = Executors.newFixedThreadPool(4, IoThreads.daemon("erase-tables"));
            try (ArchiveCatalog catalog = ArchiveCatalog.open(tables.get())) {
                for (Map.Entry<String, List<String>> topic : removed.entrySet()) {
                    ArchiveTable table = catalog.table(topic.getKey());
                    table.replace(topic.getValue(), added.get(topic.getKey()), Map.of(TablePositions.JOB, "erase", "archiver.erasure", id), pool);
                }
            } finally {
                pool.shutdownNow();
            }
        }
        List<String> old = new ArrayList<>(plan.replacedLeft());
        removed.values().forEach(old::addAll);
        for (String file : old) {
            Path path = new Path(file);
            path.getFileSystem().delete(path, false);
        }
        return erased;
    }

    /** Writes {@code file} without its records to erase to {@code target} (the file itself: replaced whole); returns the records left out. */
    private static long write(ErasurePlan.FileErasure file, Path target) throws IOException {
        Path path = file.path();
        FileSystem fs = path.getFileSystem();
        FileFormat format = FileFormats.ofFile(path.getName())
                .orElseThrow(() -> new IOException(path + " is of no format this archiver writes"));
        // an object store makes the object visible (or replaces it) when its upload completes; elsewhere a rename does
        Path written = fs.isDistributedFS() ? target : new Path(target.getParent(), "." + target.getName() + ".erasing");
        long dropped;
        try (FSDataOutputStream out = fs.create(written, FileSystem.WriteMode.OVERWRITE)) {
            dropped = format.copyWithout(path, out, file.offsets());
        }
        if (!written.equals(target) && !fs.rename(written, target)) {
            throw new IOException("Cannot replace " + target + " by " + written);
        }
        return dropped;
    }

    /** A new name for {@code file}'s erased copy, in its folder, of its format. */
    private Path aside(Path file) {
        String name = file.getName();
        String suffix = FileFormats.ofFile(name).orElseThrow().suffixes().stream().filter(name::endsWith)
                .max(java.util.Comparator.comparingInt(String::length)).orElseThrow();
        return new Path(file.getParent(), config.get(SINK_PART_PREFIX) + TableState.ERASURE_MARKER + UUID.randomUUID() + "-0" + suffix);
    }
}
