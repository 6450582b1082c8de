package io.archiver.position;

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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

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
    public PositionRecovery(String root) {
        this.store = new PositionStore(root);
        this.uploads = new PendingUploads(root);
    }

    /** Makes the archive file system's pool threads forget this job ({@link PoolThreads}) once its reads are done. */
    public void forgetJobInPoolThreads() {
        try {
            PoolThreads.forgetJobs(FileSystemContext.of(new Path(store.root())));
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

    /** {@link #resumePosition} of many partitions, from the positions as they are now, up to 16 requests in flight. */
    public Map<TopicPartition, Long> resumePositions(Collection<TopicPartition> partitions) throws IOException {
        ArchivePositions positions = store.read();
        ExecutorService pool = Executors.newFixedThreadPool(
                Math.max(1, Math.min(PARALLEL_REQUESTS, partitions.size())), IoThreads.daemon("archive-positions"));
        try {
            return PartitionLookups.perPartition(partitions, pool, tp -> resumePosition(positions, tp));
        } finally {
            pool.shutdownNow();
        }
    }

    /** Completes the commit of every listed file that is not visible yet, then returns the record's position. */
    long resolve(PositionRecord record) throws IOException {
        List<PositionRecord.PendingFile> lost = new ArrayList<>();
        long firstLost = Long.MAX_VALUE;
        for (PositionRecord.PendingFile file : record.files()) {
            Path path = new Path(file.path());
            if (path.getFileSystem().exists(path)) {
                continue;
            }
            try {
                uploads.complete(file);
                if (!path.getFileSystem().exists(path)) {
                    throw new IOException("the file is still not visible after completing its commit");
                }
                LOG.info("Completed the commit of {} ({}-{} offsets {}..{}, checkpoint {}), cut short before the last stop",
                        file.path(), record.topic(), record.partition(), file.firstOffset(), file.lastOffset(), record.checkpointId());
            } catch (IOException | RuntimeException e) {
                LOG.warn("Cannot complete the commit of {}: {}", file.path(), e.toString());
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

    private static List<String> pathsOf(List<PositionRecord.PendingFile> files) {
        List<String> paths = new ArrayList<>();
        files.forEach(f -> paths.add(f.path()));
        return paths;
    }
}
