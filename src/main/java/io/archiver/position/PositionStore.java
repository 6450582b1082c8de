package io.archiver.position;

import io.archiver.archive.ArchiveRoot;
import io.archiver.fs.IoThreads;
import io.archiver.fs.MetadataObjects;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The archive's {@link PositionRecord}s, one object per committer subtask: {@code <root>/_archiver/
 * subtask-positions/<subtask>.json} holds the records of every partition that subtask has committed, and is
 * written once per commit, so a commit costs one write whatever the number of partitions and finding where to
 * resume costs one listing and one read per subtask. A partition whose records are in several objects (its
 * subtask changed with a rescale) is where its record with the highest sequence says. The pending upload of a
 * file listed by several records is stored once per object.
 *
 * <p>Archives written by earlier versions hold one record per partition, {@code <root>/_archiver/positions/
 * <topic>/<partition>.json} (sequence 0): they are read too, and a partition's first commit by this version
 * supersedes its record there.
 *
 * <p>Reading and writing only: {@link PositionRecovery} turns records into resume positions and
 * {@link SubtaskPositions} writes a committer's records.
 */
public final class PositionStore implements Serializable {

    private static final long serialVersionUID = 1L;
    static final int FORMAT = 1;
    private static final int PARALLEL_READS = 16;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final ArchiveRoot root;

    public PositionStore(ArchiveRoot root) {
        this.root = root;
    }

    public ArchiveRoot root() {
        return root;
    }

    /** The positions object of a committer subtask. */
    public Path subtaskPath(int subtask) {
        return new Path(root.subtaskPositions(), subtask + ".json");
    }

    /** A record of the per-partition format of earlier versions. */
    Path perPartitionPath(String topic, int partition) {
        return new Path(perPartitionFolder(), topic + "/" + partition + ".json");
    }

    /** The records a committer subtask's positions object holds (none if it has none). */
    List<PositionRecord> readSubtask(int subtask) throws IOException {
        Path path = subtaskPath(subtask);
        Optional<byte[]> bytes = MetadataObjects.read(path);
        return bytes.isPresent() ? parseSubtask(bytes.get(), path) : List.of();
    }

    /** Replaces a committer subtask's positions object with {@code records}. */
    void writeSubtask(int subtask, Collection<PositionRecord> records) throws IOException {
        ObjectNode n = JSON.createObjectNode();
        n.put("format", FORMAT);
        n.put("subtask", subtask);
        ArrayNode list = n.putArray("positions");
        ObjectNode uploads = n.putObject("uploads");
        for (PositionRecord r : records) {
            list.add(r.toJsonNode(false));
            for (PositionRecord.PendingFile f : r.files()) {
                if (!uploads.has(f.path())) {
                    uploads.set(f.path(), PositionRecord.uploadJson(f));
                }
            }
        }
        MetadataObjects.write(subtaskPath(subtask), JSON.writeValueAsBytes(n));
    }

    /**
     * Every position of the archive: the subtask objects (one listing, a read each) and the per-partition
     * records of earlier versions (one listing per topic that has any, a read each), {@value #PARALLEL_READS}
     * reads at a time.
     */
    public ArchivePositions read() throws IOException {
        List<Path> subtaskObjects = new ArrayList<>();
        for (FileStatus f : list(root.subtaskPositions())) {
            if (f.getPath().getName().matches("[0-9]+\\.json")) {
                subtaskObjects.add(f.getPath());
            }
        }
        List<Path> perPartition = new ArrayList<>();
        for (FileStatus topic : list(perPartitionFolder())) {
            for (FileStatus f : list(topic.getPath())) {
                if (f.getPath().getName().matches("[0-9]+\\.json")) {
                    perPartition.add(f.getPath());
                }
            }
        }
        ArchivePositions positions = new ArchivePositions();
        if (subtaskObjects.isEmpty() && perPartition.isEmpty()) {
            return positions;
        }
        ExecutorService pool = Executors.newFixedThreadPool(
                Math.min(PARALLEL_READS, subtaskObjects.size() + perPartition.size()), IoThreads.daemon("archive-positions"));
        try {
            List<Future<List<PositionRecord>>> subtaskReads = new ArrayList<>();
            for (Path p : subtaskObjects) {
                subtaskReads.add(pool.submit(() -> {
                    Optional<byte[]> bytes = MetadataObjects.read(p);
                    return bytes.isPresent() ? parseSubtask(bytes.get(), p) : List.<PositionRecord>of();
                }));
            }
            List<Future<Optional<PositionRecord>>> perPartitionReads = new ArrayList<>();
            for (Path p : perPartition) {
                perPartitionReads.add(pool.submit(() -> {
                    Optional<byte[]> bytes = MetadataObjects.read(p);
                    return bytes.isPresent() ? Optional.of(PositionRecord.fromJson(bytes.get(), p.toString())) : Optional.empty();
                }));
            }
            PartitionLookups.await(new ArrayList<>(subtaskReads));
            PartitionLookups.await(new ArrayList<>(perPartitionReads));
            for (int i = 0; i < subtaskObjects.size(); i++) {
                ArchivePositions.Origin origin = new ArchivePositions.Origin(subtaskOf(subtaskObjects.get(i)));
                for (PositionRecord r : PartitionLookups.done(subtaskReads.get(i))) {
                    positions.offer(r, origin);
                }
            }
            for (Future<Optional<PositionRecord>> read : perPartitionReads) {
                PartitionLookups.done(read).ifPresent(r -> positions.offer(r, ArchivePositions.Origin.PER_PARTITION));
            }
            return positions;
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Stores {@code updated} where {@code positions} found its partition's record (which it replaces). Only
     * while no job writes the archive: the caller holds its lease.
     */
    public void replace(ArchivePositions positions, PositionRecord updated) throws IOException {
        ArchivePositions.Origin origin = positions.origin(updated.topicPartition());
        if (origin == null) {
            throw new IllegalArgumentException("No position of " + updated.topicPartition() + " to replace");
        }
        if (origin.equals(ArchivePositions.Origin.PER_PARTITION)) {
            MetadataObjects.write(perPartitionPath(updated.topic(), updated.partition()), updated.toJson());
            return;
        }
        List<PositionRecord> records = new ArrayList<>(readSubtask(origin.subtask()));
        records.replaceAll(r -> r.topicPartition().equals(updated.topicPartition()) && r.sequence() == updated.sequence() ? updated : r);
        writeSubtask(origin.subtask(), records);
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

    private Path perPartitionFolder() {
        return root.perPartitionPositions();
    }

    private static List<PositionRecord> parseSubtask(byte[] bytes, Path where) throws IOException {
        JsonNode n = JSON.readTree(bytes);
        if (n == null || n.path("format").asInt(-1) != FORMAT) {
            throw new IOException("Unreadable archive positions " + where + " (format "
                    + (n == null ? "?" : n.path("format")) + ", this archiver reads format " + FORMAT + ")");
        }
        List<PositionRecord> records = new ArrayList<>();
        for (JsonNode r : n.path("positions")) {
            records.add(PositionRecord.fromJsonNode(r, n.path("uploads")));
        }
        return records;
    }

    private static int subtaskOf(Path object) {
        String name = object.getName();
        return Integer.parseInt(name.substring(0, name.length() - ".json".length()));
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
}
