package io.archiver.position;

import io.archiver.fs.FileSystemContext;

import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.functions.sink.filesystem.BucketWriter;
import org.apache.flink.streaming.api.functions.sink.filesystem.BulkBucketWriter;
import org.apache.flink.streaming.api.functions.sink.filesystem.InProgressFileWriter.PendingFileRecoverable;
import org.apache.flink.util.TemporaryClassLoaderContext;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The per-partition {@link PositionRecord}s of an archive, under {@code <root>/_archiver/positions/<topic>/
 * <partition>.json}: one object per partition, so finding where to resume costs one read per partition,
 * whatever the number of archived files.
 *
 * <p>{@link #resolve} turns a record into a resume position: every file the record lists must exist; a file
 * that does not was cut off between the checkpoint and its commit, and its pending upload is completed now
 * (exactly what a restore from that checkpoint would have done). If the upload is gone and a later offset of
 * the same partition is already archived, no resume position is exact and resolving fails, naming the files.
 */
public final class PositionStore implements Serializable {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(PositionStore.class);
    private static final int PARALLEL_REQUESTS = 16;

    private final String root;
    private transient BucketWriter<?, ?> uploads;

    public PositionStore(String root) {
        this.root = root;
    }

    public String root() {
        return root;
    }

    public Path recordPath(String topic, int partition) {
        return new Path(positionsFolder(), topic + "/" + partition + ".json");
    }

    /** Serializes the pending upload of a part file, as {@link PositionRecord.PendingFile} keeps it. */
    public byte[] serializeUpload(PendingFileRecoverable pending) throws IOException {
        return uploadSerializer().serialize(pending);
    }

    public int uploadVersion() throws IOException {
        return uploadSerializer().getVersion();
    }

    public void write(PositionRecord record) throws IOException {
        MetadataObjects.write(recordPath(record.topic(), record.partition()), record.toJson());
    }

    /** Writes the records in parallel; returns when all are written, throws if one failed. */
    public void writeAll(Collection<PositionRecord> records, ExecutorService pool) throws IOException {
        List<Future<?>> writes = new ArrayList<>(records.size());
        for (PositionRecord r : records) {
            writes.add(pool.submit(() -> {
                write(r);
                return null;
            }));
        }
        await(writes);
    }

    public Optional<PositionRecord> read(String topic, int partition) throws IOException {
        Path path = recordPath(topic, partition);
        Optional<byte[]> json = MetadataObjects.read(path);
        return json.isPresent() ? Optional.of(PositionRecord.fromJson(json.get(), path.toString())) : Optional.empty();
    }

    /** Every position record of the archive: one listing per topic, one read per partition. */
    public List<PositionRecord> allRecords() throws IOException {
        List<PositionRecord> records = new ArrayList<>();
        for (FileStatus topic : list(positionsFolder())) {
            String name = topic.getPath().getName();
            for (int partition : recordedPartitions(name)) {
                read(name, partition).ifPresent(records::add);
            }
        }
        return records;
    }

    private Path positionsFolder() {
        return new Path(new Path(root), "_archiver/positions");
    }

    /** The entries of {@code folder}; none if it does not exist. */
    private static FileStatus[] list(Path folder) throws IOException {
        try {
            FileStatus[] entries = folder.getFileSystem().listStatus(folder);
            return entries == null ? new FileStatus[0] : entries;
        } catch (FileNotFoundException e) {
            return new FileStatus[0];
        }
    }

    /**
     * Object keys (without bucket) of the files the position records list: their uploads belong to commits
     * a start without state completes, so they are never orphans.
     */
    public static Set<String> listedKeys(Collection<PositionRecord> records) {
        Set<String> keys = new HashSet<>();
        for (PositionRecord r : records) {
            for (PositionRecord.PendingFile f : r.files()) {
                keys.add(new Path(f.path()).toUri().getPath().replaceFirst("^/", ""));
            }
        }
        return keys;
    }

    /** The next offsets the stored records of these partitions name (partitions without record are left out). */
    public Map<TopicPartition, Long> storedPositions(Collection<TopicPartition> partitions, ExecutorService pool) throws IOException {
        return perPartition(partitions, pool, tp -> read(tp.topic(), tp.partition()).map(PositionRecord::nextOffset));
    }

    /** The partitions of {@code topic} that have a position record (one listing). */
    public Set<Integer> recordedPartitions(String topic) throws IOException {
        Set<Integer> partitions = new TreeSet<>();
        for (FileStatus file : list(new Path(positionsFolder(), topic))) {
            String name = file.getPath().getName();
            if (name.matches("[0-9]+\\.json")) {
                partitions.add(Integer.parseInt(name.substring(0, name.length() - 5)));
            }
        }
        return partitions;
    }

    /**
     * {@link #resumePosition} of the partitions whose stored record lists only visible files, found by reading
     * alone: the record's next offset. Partitions without a record, and those whose record lists a file not
     * visible yet (whose commit {@link #resumePosition} would complete), are left out.
     */
    public Map<TopicPartition, Long> settledPositions(Collection<TopicPartition> partitions, ExecutorService pool)
            throws IOException {
        return perPartition(partitions, pool, tp -> {
            Optional<PositionRecord> record = read(tp.topic(), tp.partition());
            return record.isPresent() && allVisible(record.get()) ? Optional.of(record.get().nextOffset()) : Optional.empty();
        });
    }

    private static boolean allVisible(PositionRecord record) throws IOException {
        for (PositionRecord.PendingFile file : record.files()) {
            Path path = new Path(file.path());
            if (!path.getFileSystem().exists(path)) {
                return false;
            }
        }
        return true;
    }

    /** Where a job without state resumes the partition, if the archive holds any of it. */
    public Optional<Long> resumePosition(String topic, int partition) throws IOException {
        Optional<PositionRecord> record = read(topic, partition);
        return record.isPresent() ? Optional.of(resolve(record.get())) : Optional.empty();
    }

    /** {@link #resumePosition} of many partitions, with up to 16 requests in flight. */
    public Map<TopicPartition, Long> resumePositions(Collection<TopicPartition> partitions) throws IOException {
        ExecutorService pool = Executors.newFixedThreadPool(
                Math.max(1, Math.min(PARALLEL_REQUESTS, partitions.size())), daemon("archive-positions"));
        try {
            return perPartition(partitions, pool, tp -> resumePosition(tp.topic(), tp.partition()));
        } finally {
            pool.shutdownNow();
        }
    }

    /** Runs {@code lookup} for every partition on {@code pool}; partitions it finds nothing for are left out. */
    private static Map<TopicPartition, Long> perPartition(
            Collection<TopicPartition> partitions, ExecutorService pool, Lookup lookup) throws IOException {
        Map<TopicPartition, Future<Optional<Long>>> lookups = new HashMap<>();
        for (TopicPartition tp : partitions) {
            lookups.put(tp, pool.submit(() -> lookup.of(tp)));
        }
        await(new ArrayList<>(lookups.values()));
        Map<TopicPartition, Long> positions = new HashMap<>();
        try {
            for (Map.Entry<TopicPartition, Future<Optional<Long>>> e : lookups.entrySet()) {
                e.getValue().get().ifPresent(offset -> positions.put(e.getKey(), offset));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("Interrupted while reading archive positions", e);
        } catch (ExecutionException e) {
            throw new IOException(e.getCause());
        }
        return positions;
    }

    /** A position lookup of one partition. */
    private interface Lookup {
        Optional<Long> of(TopicPartition tp) throws IOException;
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
                PendingFileRecoverable pending = uploadSerializer().deserialize(file.uploadVersion(), file.upload());
                // S3A tidies up after the commit on a pool thread that it may start: see FileSystemContext.
                try (TemporaryClassLoaderContext ignored = FileSystemContext.of(path).enter()) {
                    uploads().recoverPendingFile(pending).commitAfterRecovery();
                }
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
            List<PositionRecord.PendingFile> visible = new ArrayList<>(record.files());
            visible.removeAll(lost);
            write(new PositionRecord(record.topic(), record.partition(), firstLost, record.checkpointId(), visible));
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

    @SuppressWarnings("unchecked")
    private SimpleVersionedSerializer<PendingFileRecoverable> uploadSerializer() throws IOException {
        return (SimpleVersionedSerializer<PendingFileRecoverable>) uploads().getProperties().getPendingFileRecoverableSerializer();
    }

    private synchronized BucketWriter<?, ?> uploads() throws IOException {
        if (uploads == null) {
            BulkWriter.Factory<Object> unused = out -> {
                throw new UnsupportedOperationException("position store never writes part files");
            };
            uploads = new BulkBucketWriter<>(new Path(root).getFileSystem().createRecoverableWriter(), unused);
        }
        return uploads;
    }

    private static void await(List<? extends Future<?>> futures) throws IOException {
        try {
            for (Future<?> f : futures) {
                f.get();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("Interrupted while accessing archive positions", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw cause instanceof IOException ? (IOException) cause : new IOException(cause);
        } finally {
            futures.forEach(f -> f.cancel(true));
        }
    }

    /** Daemon threads named {@code name}, for the small I/O pools of the position records. */
    public static java.util.concurrent.ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }
}
