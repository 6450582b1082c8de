package io.archiver.audit;

import org.apache.flink.core.fs.Path;

/** A committed data file of the archive, with the topic and partition its folder names. */
public final class ArchiveFile {

    private final Path path;
    private final long size;
    private final String topic;
    private final int partition;

    public ArchiveFile(Path path, long size, String topic, int partition) {
        this.path = path;
        this.size = size;
        this.topic = topic;
        this.partition = partition;
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
