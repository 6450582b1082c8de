package io.archiver.sink;

import io.archiver.record.ArchiveRecord;

import org.apache.flink.streaming.api.functions.sink.filesystem.PartFileInfo;
import org.apache.flink.streaming.api.functions.sink.filesystem.rollingpolicies.CheckpointRollingPolicy;

/**
 * Closes part files on every checkpoint (so the checkpoint carries every pending file and a restore never
 * resumes a half-written compressed file), and in between once a file reaches a size, has been inactive
 * for a while, or has been open for a while (zero disables a time condition), or when the open files buffer
 * more memory than their budget and this one holds at least its share ({@link OpenFileMemory}).
 */
public final class ArchiveRollingPolicy extends CheckpointRollingPolicy<ArchiveRecord, String> {

    private static final long serialVersionUID = 1L;

    private final long maxPartSizeBytes;
    private final long inactivityMillis;
    private final long rolloverMillis;
    private final OpenFileMemory memory;

    ArchiveRollingPolicy(long maxPartSizeBytes, long inactivityMillis, long rolloverMillis, OpenFileMemory memory) {
        this.maxPartSizeBytes = maxPartSizeBytes;
        this.inactivityMillis = inactivityMillis;
        this.rolloverMillis = rolloverMillis;
        this.memory = memory;
    }

    @Override
    public boolean shouldRollOnEvent(PartFileInfo<String> partFile, ArchiveRecord element)
            throws java.io.IOException {
        return partFile.getSize() >= maxPartSizeBytes || memory.shouldClose(partFile.getBucketId());
    }

    @Override
    public boolean shouldRollOnProcessingTime(PartFileInfo<String> partFile, long now) {
        return (inactivityMillis > 0 && now - partFile.getLastUpdateTime() >= inactivityMillis)
                || (rolloverMillis > 0 && now - partFile.getCreationTime() >= rolloverMillis)
                || memory.shouldClose(partFile.getBucketId());
    }
}
