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
        return ArchiveLayout.bucket(record.getTopic(), record.getPartition(), record.getTimestamp(), time, layout);
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
