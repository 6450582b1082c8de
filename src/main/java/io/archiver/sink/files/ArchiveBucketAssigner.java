package io.archiver.sink.files;

import io.archiver.config.TimePartitioning;
import io.archiver.format.ArchiveLayout;
import io.archiver.record.ArchiveRecord;

import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.functions.sink.filesystem.BucketAssigner;
import org.apache.flink.streaming.api.functions.sink.filesystem.bucketassigners.SimpleVersionedStringSerializer;

/** Assigns every record to its {@link ArchiveLayout} folder: topic, partition and record-time folders. */
public final class ArchiveBucketAssigner implements BucketAssigner<ArchiveRecord, String> {

    private static final long serialVersionUID = 1L;

    private final TimePartitioning time;

    public ArchiveBucketAssigner(TimePartitioning time) {
        this.time = time;
    }

    @Override
    public String getBucketId(ArchiveRecord record, Context context) {
        return bucketOf(record);
    }

    /** The bucket of {@code record}; it depends on the record alone. */
    String bucketOf(ArchiveRecord record) {
        return ArchiveLayout.bucket(record.getTopic(), record.getPartition(), record.getTimestamp(), time);
    }

    @Override
    public SimpleVersionedSerializer<String> getSerializer() {
        return SimpleVersionedStringSerializer.INSTANCE;
    }

    @Override
    public String toString() {
        return "ArchiveBucketAssigner{time=" + time + "}";
    }
}
