package io.archiver.erase;

import io.archiver.archive.ArchiveFile;
import io.archiver.archive.ArchiveFiles;
import io.archiver.archive.ArchiveLayout;
import io.archiver.archive.ArchiveRoot;
import io.archiver.config.ArchiverConfig;
import io.archiver.fencing.ArchiveLease;
import io.archiver.format.FileFormat;
import io.archiver.format.FileFormats;
import io.archiver.format.FormatReader;
import io.archiver.fs.IoThreads;
import io.archiver.job.BatchWork;
import io.archiver.position.PositionRecord;
import io.archiver.position.PositionRecovery;
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
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;

import static io.archiver.config.JobOptions.JOB_NAME;
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

    private static final long COMMIT_POLL_MILLIS = 500;

    private final ArchiverConfig config;
    private final ArchiveRoot root;
    private final Optional<TableSettings> tables;
    private final BatchWork work;

    /** {@code work} runs the search of the files and their rewrite: threads of this JVM, or batch jobs on a cluster. */
    public ArchiveEraser(ArchiverConfig config, BatchWork work) {
        this.config = config;
        this.work = work;
        this.root = ArchiveRoot.of(config);
        this.tables = TableSettings.of(config);
    }

    /**
     * Finds what {@code request} erases now: every file of the archive and its dead letters searched, {@link BatchWork in parallel}.
     * Files the position records name that are not complete yet are a commit the job that holds the archive's lease is
     * making, awaited (at most the lease timeout, {@code notices} hearing of the wait), or a commit cut short: a job that
     * ended ({@code ended} tells), or whose lease expired, completes them at its next start.
     */
    public ErasurePlan plan(ErasureRequest request, ArchiveLease.EndedJobs ended, Consumer<String> notices)
            throws IOException, InterruptedException {
        List<FileSearch.Target> targets = new ArrayList<>();
        for (Map.Entry<String, List<ArchiveFile>> file : ArchiveFile.byPath(TableArchiveFiles.of(config).list().committed()).entrySet()) {
            ArchiveFile first = file.getValue().get(0);
            if (request.covers(first.topic())) {
                targets.add(new FileSearch.Target(first.path(), first.topic(), false));
            }
        }
        for (ArchiveFile file : ArchiveFiles.listed(ArchiveRoot.of(config.deadLetterPath())).list().committed()) {
            if (request.covers(file.topic())) {
                targets.add(new FileSearch.Target(file.path(), file.topic(), true));
            }
        }
        List<FileSearch.Found> searched = new ArrayList<>(work.run(config.get(JOB_NAME) + " erase search", targets,
                new FileSearch(PayloadFormats.of(config), request)));
        searched.sort(Comparator.comparing(f -> f.path().toString()));
        List<ErasurePlan.FileErasure> found = new ArrayList<>();
        int readWhole = 0;
        Set<String> columnsNowhere = new TreeSet<>(request.where().keySet());
        Set<String> untyped = new TreeSet<>();
        for (FileSearch.Found f : searched) {
            if (f.erasure() != null) {
                found.add(f.erasure());
            }
            readWhole += f.readWhole() ? 1 : 0;
            f.columns().forEach((column, search) -> {
                if (search == FormatReader.ColumnSearch.SEARCHED) {
                    columnsNowhere.remove(column);
                } else if (search == FormatReader.ColumnSearch.UNTYPED) {
                    untyped.add(f.path().toString());
                }
            });
        }
        ErasurePlan.Search search = new ErasurePlan.Search(searched.size(), readWhole, List.copyOf(untyped), Set.copyOf(columnsNowhere));
        List<String> incomplete = incomplete();
        if (!incomplete.isEmpty() && awaitCommit(incomplete, ended, notices)) {
            return new ErasurePlan(found, List.of(), incomplete, replacedLeft(), search);
        }
        return new ErasurePlan(found, incomplete, List.of(), replacedLeft(), search);
    }

    /**
     * Waits until each of {@code files} is in the archive while a job that has not ended holds the archive's lease, at
     * most the lease timeout: true when they are (that job's commit completed them), false when no such job holds it.
     */
    private boolean awaitCommit(List<String> files, ArchiveLease.EndedJobs ended, Consumer<String> notices)
            throws IOException, InterruptedException {
        ArchiveLease lease = new ArchiveLease(root, "erase-" + UUID.randomUUID(), "erase", config.leaseTimeout());
        Optional<String> job = lease.liveHolder(ended);
        if (job.isEmpty()) {
            return false;
        }
        notices.accept(String.format("The archive's lease was renewed lately by %s, whose commit of %d files is not complete yet; "
                + "waiting up to %d s for it.", job.get(), files.size(), config.leaseTimeout().toSeconds()));
        long deadline = System.currentTimeMillis() + config.leaseTimeout().toMillis();
        List<String> left = files;
        while (!left.isEmpty() && System.currentTimeMillis() < deadline && lease.liveHolder(ended).isPresent()) {
            Thread.sleep(COMMIT_POLL_MILLIS);
            left = missing(left);
        }
        return left.isEmpty();
    }

    /** The files the position records name (each partition's last commit) that are not in the archive yet. */
    private List<String> incomplete() throws IOException {
        Set<String> named = new TreeSet<>();
        for (PositionRecord r : new PositionRecovery(root).read().all()) {
            r.files().forEach(f -> named.add(f.path()));
        }
        return missing(named);
    }

    /** Those of {@code files} that are not in the archive, in their order. */
    private static List<String> missing(Collection<String> files) throws IOException {
        List<String> missing = new ArrayList<>();
        for (String file : files) {
            Path path = new Path(file);
            if (!path.getFileSystem().exists(path)) {
                missing.add(file);
            }
        }
        return missing;
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
     * Writes every file of {@code plan} anew without its records to erase ({@link BatchWork in parallel}; erasure
     * {@code id}: its name in the tables' snapshots); returns how many records were left out.
     */
    public long apply(ErasurePlan plan, String id) throws IOException {
        List<Rewrite> rewrites = new ArrayList<>();
        for (ErasurePlan.FileErasure f : plan.files()) {
            rewrites.add(new Rewrite(f, tables.isEmpty() || f.deadLetters() ? f.path() : aside(f.path(), id)));
        }
        List<Rewritten> written = work.run(config.get(JOB_NAME) + " erase rewrite", rewrites, ArchiveEraser::write);
        long erased = written.stream().mapToLong(Rewritten::dropped).sum();
        Map<String, List<String>> removed = new LinkedHashMap<>();
        Map<String, List<TableFile>> added = new LinkedHashMap<>();
        for (Rewritten r : written) {
            ErasurePlan.FileErasure f = r.rewrite().file();
            if (!r.rewrite().target().equals(f.path())) {
                removed.computeIfAbsent(f.topic(), t -> new ArrayList<>()).add(f.path().toString());
                added.computeIfAbsent(f.topic(), t -> new ArrayList<>()).add(TableFile.fromFooter(r.rewrite().target(), r.length()));
            }
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

    /** A file to write anew without its records to erase, to {@code target}: the file itself (replaced whole) or its erased copy. */
    record Rewrite(ErasurePlan.FileErasure file, Path target) implements Serializable {}

    /** A file written anew: how many records it left out, how long the new file is. */
    record Rewritten(Rewrite rewrite, long dropped, long length) implements Serializable {}

    /** Writes a file without its records to erase to its target; one task of an erasure's rewrite. */
    private static Rewritten write(Rewrite rewrite) throws IOException {
        Path path = rewrite.file().path();
        Path target = rewrite.target();
        FileSystem fs = path.getFileSystem();
        FileFormat format = FileFormats.ofFile(path.getName())
                .orElseThrow(() -> new IOException(path + " is of no format this archiver writes"));
        // an object store makes the object visible (or replaces it) when its upload completes; elsewhere a rename does
        Path written = fs.isDistributedFS() ? target : new Path(target.getParent(), "." + target.getName() + ".erasing");
        long dropped;
        try (FSDataOutputStream out = fs.create(written, FileSystem.WriteMode.OVERWRITE)) {
            dropped = format.copyWithout(path, out, rewrite.file().offsets());
        }
        if (!written.equals(target) && !fs.rename(written, target)) {
            throw new IOException("Cannot replace " + target + " by " + written);
        }
        return new Rewritten(rewrite, dropped, fs.getFileStatus(target).getLen());
    }

    /** The name of {@code file}'s erased copy in erasure {@code id}: in its folder, of its format, the same when written again. */
    private Path aside(Path file, String id) {
        String name = file.getName();
        String suffix = FileFormats.ofFile(name).orElseThrow().suffixes().stream().filter(name::endsWith)
                .max(Comparator.comparingInt(String::length)).orElseThrow();
        return new Path(file.getParent(), config.get(SINK_PART_PREFIX) + TableState.ERASURE_MARKER + UUID.nameUUIDFromBytes((id + ' ' + file).getBytes(StandardCharsets.UTF_8)) + "-0" + suffix);
    }
}
