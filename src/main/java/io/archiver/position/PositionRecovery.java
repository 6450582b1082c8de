package io.archiver.position;

import io.archiver.archive.ArchiveRoot;
import io.archiver.fs.FileSystemContext;
import io.archiver.fs.IoThreads;
import io.archiver.fs.PoolThreads;

import org.apache.flink.core.fs.Path;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Where a job without state resumes, from the archive's {@link PositionRecord}s. {@link #resolve} turns a
 * record into a resume position: every file the record lists must exist; a file that does not was cut off
 * between the checkpoint and its commit, and its pending upload is completed now (exactly what a restore from
 * that checkpoint would have done). If the upload is gone and a later offset of the same partition is already
 * archived, no resume position is exact and resolving fails, naming the files. Resolving writes no position:
 * a partition resumed below a lost upload keeps resolving there until this job's first commit of it, whose
 * record then follows ({@link SubtaskPositions}).
 */
public final class PositionRecovery implements Serializable {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(PositionRecovery.class);
    private static final int PARALLEL_REQUESTS = 16;

    private final PositionStore store;
    private final PendingUploads uploads;

    /** Recovery of the archive under {@code root}. */
    public PositionRecovery(ArchiveRoot root) {
        this.store = new PositionStore(root);
        this.uploads = new PendingUploads(root);
    }

    /** Makes the archive file system's pool threads forget this job ({@link PoolThreads}) once its reads are done. */
    public void forgetJobInPoolThreads() {
        try {
            PoolThreads.forgetJobs(FileSystemContext.of(store.root().path()));
        } catch (IOException e) {
            // the file system could not even be looked up: it started no threads
        }
    }

    /** The position records it reads. */
    public PositionStore store() {
        return store;
    }

    /** The archive's positions as they are now (one listing, a read per subtask object). */
    public ArchivePositions read() throws IOException {
        return store.read();
    }

    /**
     * {@link #resumePosition} of the partitions whose record lists only visible files, found by checking alone:
     * the record's next offset. Partitions without a record, and those whose record lists a file not visible
     * yet (whose commit {@link #resumePosition} would complete), are left out.
     */
    public Map<TopicPartition, Long> settledPositions(
            ArchivePositions positions, Collection<TopicPartition> partitions, ExecutorService pool) throws IOException {
        return PartitionLookups.perPartition(partitions, pool, tp -> {
            Optional<PositionRecord> record = positions.record(tp);
            return record.isPresent() && allVisible(record.get()) ? Optional.of(record.get().nextOffset()) : Optional.empty();
        });
    }

    static boolean allVisible(PositionRecord record) throws IOException {
        for (PositionRecord.PendingFile file : record.files()) {
            Path path = new Path(file.path());
            if (!path.getFileSystem().exists(path)) {
                return false;
            }
        }
        return true;
    }

    /** Where a job without state resumes the partition, if {@code positions} hold any of it. */
    public Optional<Long> resumePosition(ArchivePositions positions, TopicPartition tp) throws IOException {
        Optional<PositionRecord> record = positions.record(tp);
        return record.isPresent() ? Optional.of(resolve(record.get())) : Optional.empty();
    }

    /**
     * {@link #resumePosition} of many partitions, from the positions as they are now, up to 16 requests in flight.
     * Each file the records list is checked (and its commit completed) once, however many partitions it holds.
     */
    public Map<TopicPartition, Long> resumePositions(Collection<TopicPartition> partitions) throws IOException {
        ArchivePositions positions = store.read();
        Map<String, PositionRecord.PendingFile> listed = new LinkedHashMap<>();
        for (TopicPartition tp : partitions) {
            positions.record(tp).ifPresent(r -> r.files().forEach(f -> listed.putIfAbsent(f.path(), f)));
        }
        ExecutorService pool = Executors.newFixedThreadPool(
                Math.max(1, Math.min(PARALLEL_REQUESTS, Math.max(listed.size(), 1))), IoThreads.daemon("archive-positions"));
        try {
            Map<String, Future<Boolean>> checks = new HashMap<>();
            listed.forEach((path, file) -> checks.put(path, pool.submit(() -> visibleOrCompleted(file))));
            PartitionLookups.await(new ArrayList<>(checks.values()));
            Map<String, Boolean> visible = new HashMap<>();
            for (Map.Entry<String, Future<Boolean>> c : checks.entrySet()) {
                visible.put(c.getKey(), PartitionLookups.done(c.getValue()));
            }
            Map<TopicPartition, Long> resume = new HashMap<>();
            for (TopicPartition tp : partitions) {
                Optional<PositionRecord> record = positions.record(tp);
                if (record.isPresent()) {
                    resume.put(tp, resolve(record.get(), f -> visible.get(f.path())));
                }
            }
            return resume;
        } finally {
            pool.shutdownNow();
        }
    }

    /** Completes the commit of every listed file that is not visible yet, then returns the record's position. */
    long resolve(PositionRecord record) throws IOException {
        return resolve(record, this::visibleOrCompleted);
    }

    /**
     * Whether {@code file} is visible, completing its commit if it is not (cut short before the last stop); false
     * if its upload is lost. A commit that fails because another reader of the positions completed it first finds
     * the file visible.
     */
    private boolean visibleOrCompleted(PositionRecord.PendingFile file) throws IOException {
        Path path = new Path(file.path());
        if (path.getFileSystem().exists(path)) {
            return true;
        }
        try {
            uploads.complete(file);
            if (!path.getFileSystem().exists(path)) {
                throw new IOException("the file is still not visible after completing its commit");
            }
            LOG.info("Completed the commit of {} ({} bytes), cut short before the last stop", file.path(), file.bytes());
            return true;
        } catch (IOException | RuntimeException e) {
            if (path.getFileSystem().exists(path)) {
                return true;
            }
            LOG.warn("Cannot complete the commit of {}: {}", file.path(), e.toString());
            return false;
        }
    }

    private long resolve(PositionRecord record, Visibility visibility) throws IOException {
        List<PositionRecord.PendingFile> lost = new ArrayList<>();
        long firstLost = Long.MAX_VALUE;
        for (PositionRecord.PendingFile file : record.files()) {
            if (!visibility.visible(file)) {
                lost.add(file);
                firstLost = Math.min(firstLost, file.firstOffset());
            }
        }
        if (lost.isEmpty()) {
            return record.nextOffset();
        }
        List<String> beyond = new ArrayList<>();
        for (PositionRecord.PendingFile file : record.files()) {
            if (!lost.contains(file) && file.lastOffset() >= firstLost) {
                beyond.add(file.path());
            }
        }
        if (beyond.isEmpty()) {
            LOG.warn("{}-{}: resuming at offset {}, the first offset of files whose upload is lost: {}",
                    record.topic(), record.partition(), firstLost, pathsOf(lost));
            return firstLost;
        }
        throw new IOException(String.format(
                "Cannot resume %s-%d exactly from the archive: the upload of %s (offsets from %d) can no longer be committed, "
                        + "but later offsets of the partition are already archived in %s. Resuming before them would archive those "
                        + "offsets twice, resuming after them would leave a gap. Fix: delete %s and start again (their offsets are "
                        + "then archived anew), or start from a savepoint / set resume.from-archive: false with an explicit kafka.start.",
                record.topic(), record.partition(), pathsOf(lost), firstLost, beyond, beyond));
    }

    /** Whether a listed file is visible (its commit completed now if need be). */
    private interface Visibility {
        boolean visible(PositionRecord.PendingFile file) throws IOException;
    }

    private static List<String> pathsOf(List<PositionRecord.PendingFile> files) {
        List<String> paths = new ArrayList<>();
        files.forEach(f -> paths.add(f.path()));
        return paths;
    }
}
