package io.archiver.archive;

import io.archiver.record.ArchiveRecord;

import org.apache.flink.core.fs.Path;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * A file of the archive as one partition sees it: the file of a partition folder, or a partition's share of a
 * file of the per-topic layout (a shared file, which holds many partitions: one of these per partition, with
 * the offsets its footer names). Reading it reads that partition's records only.
 */
public final class ArchiveFile {

    private final Path path;
    private final long size;
    private final String topic;
    private final int partition;
    private final long modificationTime;
    /** Of a shared file: the partition's first offset, last offset and records; null otherwise. */
    private final long[] sharedStatistics;

    public ArchiveFile(Path path, long size, String topic, int partition, long modificationTime) {
        this(path, size, topic, partition, modificationTime, null);
    }

    private ArchiveFile(Path path, long size, String topic, int partition, long modificationTime, long[] sharedStatistics) {
        this.path = path;
        this.size = size;
        this.topic = topic;
        this.partition = partition;
        this.modificationTime = modificationTime;
        this.sharedStatistics = sharedStatistics;
    }

    /** {@code partition}'s share of a file of the per-topic layout: offsets {@code first..last}, {@code records} of them. */
    static ArchiveFile shared(Path path, long size, String topic, int partition, long modificationTime, long first, long last,
            long records) {
        return new ArchiveFile(path, size, topic, partition, modificationTime, new long[] {first, last, records});
    }

    /** Epoch milliseconds of the last write, as the filesystem reports it. */
    public long modificationTime() {
        return modificationTime;
    }

    public Path path() {
        return path;
    }

    /** The whole file's size (a shared file's partitions share it). */
    public long size() {
        return size;
    }

    public String topic() {
        return topic;
    }

    public int partition() {
        return partition;
    }

    /** Whether the file holds other partitions too (the per-topic layout). */
    public boolean shared() {
        return sharedStatistics != null;
    }

    /** The partition's records in the file, in file order. */
    public void read(ArchiveFileReader reader, Consumer<ArchiveRecord> sink) throws IOException {
        if (shared()) {
            reader.readPartition(path, partition, sink);
        } else {
            reader.read(path, sink);
        }
    }

    /** The offsets of the partition's records in the file, in file order. */
    public void offsets(ArchiveFileReader reader, LongConsumer sink) throws IOException {
        if (shared()) {
            reader.partitionOffsets(path, partition, sink);
        } else {
            reader.offsets(path, sink);
        }
    }

    /**
     * The partition's smallest and largest offset and record count in the file ({@code {min, max, count}}) without
     * reading records, or null when only reading tells ({@link ArchiveFileReader#offsetStatistics}).
     */
    public long[] offsetStatistics(ArchiveFileReader reader) throws IOException {
        return shared() ? sharedStatistics.clone() : reader.offsetStatistics(path);
    }

    /** {@code files} by path, in their order: a file of the per-topic layout with its shares together. */
    public static Map<String, List<ArchiveFile>> byPath(Collection<ArchiveFile> files) {
        Map<String, List<ArchiveFile>> byPath = new LinkedHashMap<>();
        files.forEach(f -> byPath.computeIfAbsent(f.path().toString(), k -> new ArrayList<>()).add(f));
        return byPath;
    }

    @Override
    public String toString() {
        return shared() ? path + " (partition " + partition + ")" : path.toString();
    }
}
