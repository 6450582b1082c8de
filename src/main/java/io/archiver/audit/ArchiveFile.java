package io.archiver.audit;

import org.apache.flink.core.fs.Path;

/** A file of the archive, with the topic and partition its folder names. */
public final class ArchiveFile {

    private final Path path;
    private final long size;
    private final String topic;
    private final int partition;
    private final long modificationTime;

    public ArchiveFile(Path path, long size, String topic, int partition, long modificationTime) {
        this.path = path;
        this.size = size;
        this.topic = topic;
        this.partition = partition;
        this.modificationTime = modificationTime;
    }

    /** Epoch milliseconds of the last write, as the filesystem reports it. */
    public long modificationTime() {
        return modificationTime;
    }

    public Path path() {
        return path;
    }

    public long size() {
        return size;
    }

    public String topic() {
        return topic;
    }

    public int partition() {
        return partition;
    }

    @Override
    public String toString() {
        return path.toString();
    }
}
