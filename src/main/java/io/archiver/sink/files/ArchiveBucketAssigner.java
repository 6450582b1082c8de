package io.archiver.sink.files;

import io.archiver.config.SinkLayout;
import io.archiver.config.TimePartitioning;
import io.archiver.archive.ArchiveLayout;
import io.archiver.record.ArchiveRecord;

import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.functions.sink.filesystem.BucketAssigner;
import org.apache.flink.streaming.api.functions.sink.filesystem.bucketassigners.SimpleVersionedStringSerializer;

/** Assigns every record to its {@link ArchiveLayout} folder: topic, partition (per-partition layout) and record-time folders. */
public final class ArchiveBucketAssigner implements BucketAssigner<ArchiveRecord, String> {

    private static final long serialVersionUID = 1L;

    private final TimePartitioning time;
    private final SinkLayout layout;
    /**
     * The folder of the last record: records come in per-partition batches, mostly within one time folder, so the
     * folder string is built once per run of them, not per record (and, the same string, keeps its hash for the
     * file sink's lookup of the bucket). Immutable, so a reader on another thread sees a whole one.
     */
    private transient Folder last;

    public ArchiveBucketAssigner(TimePartitioning time, SinkLayout layout) {
        this.time = time;
        this.layout = layout;
    }

    @Override
    public String getBucketId(ArchiveRecord record, Context context) {
        return bucketOf(record);
    }

    /** The bucket of {@code record}; it depends on the record alone. */
    String bucketOf(ArchiveRecord record) {
        Folder folder = last;
        String topic = record.getTopic();
        int partition = record.getPartition();
        int folderPartition = layout == SinkLayout.PER_TOPIC ? 0 : partition;
        long timestamp = record.getTimestamp();
        if (folder != null && folder.holds(topic, folderPartition, timestamp)) {
            return folder.bucket();
        }
        folder = new Folder(topic, folderPartition, ArchiveLayout.timeFolderStart(timestamp, time),
                ArchiveLayout.timeFolderEnd(timestamp, time), ArchiveLayout.bucket(topic, partition, timestamp, time, layout));
        last = folder;
        return folder.bucket();
    }

    /** A folder: the records of {@code topic} and {@code partition} (0 in the per-topic layout) from {@code from} until {@code until}. */
    private record Folder(String topic, int partition, long from, long until, String bucket) {
        boolean holds(String topic, int partition, long timestamp) {
            return partition == this.partition && timestamp >= from && timestamp < until && topic.equals(this.topic);
        }
    }

    @Override
    public SimpleVersionedSerializer<String> getSerializer() {
        return SimpleVersionedStringSerializer.INSTANCE;
    }

    @Override
    public String toString() {
        return "ArchiveBucketAssigner{time=" + time + ", layout=" + layout + "}";
    }
}
