package io.archiver.position;

import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;
import org.apache.kafka.common.TopicPartition;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * The per-partition {@link PositionRecord}s of an archive, under {@code <root>/_archiver/positions/<topic>/
 * <partition>.json}: one object per partition, so finding where to resume costs one read per partition,
 * whatever the number of archived files. Reading and writing only: {@link PositionRecovery} turns records
 * into resume positions.
 */
public final class PositionStore implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String root;

    public PositionStore(String root) {
        this.root = root;
    }

    public String root() {
        return root;
    }

    public Path recordPath(String topic, int partition) {
        return new Path(positionsFolder(), topic + "/" + partition + ".json");
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
        PartitionLookups.await(writes);
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
        return PartitionLookups.perPartition(partitions, pool, tp -> read(tp.topic(), tp.partition()).map(PositionRecord::nextOffset));
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


}
