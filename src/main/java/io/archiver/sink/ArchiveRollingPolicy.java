package io.archiver.sink;

import io.archiver.record.ArchiveRecord;

import org.apache.flink.streaming.api.functions.sink.filesystem.PartFileInfo;
import org.apache.flink.streaming.api.functions.sink.filesystem.rollingpolicies.CheckpointRollingPolicy;

/**
 * Closes part files on every checkpoint (so the checkpoint carries every pending file and a restore never
 * resumes a half-written compressed file), and in between once a file reaches a size, has been inactive
 * for a while, or has been open for a while. Zero disables a time condition.
 */
public final class ArchiveRollingPolicy extends CheckpointRollingPolicy<ArchiveRecord, String> {

    private static final long serialVersionUID = 1L;

    private final long maxPartSizeBytes;
    private final long inactivityMillis;
    private final long rolloverMillis;

    public ArchiveRollingPolicy(long maxPartSizeBytes, long inactivityMillis, long rolloverMillis) {
        this.maxPartSizeBytes = maxPartSizeBytes;
        this.inactivityMillis = inactivityMillis;
        this.rolloverMillis = rolloverMillis;
    }

    @Override
    public boolean shouldRollOnEvent(PartFileInfo<String> partFile, ArchiveRecord element)
            throws java.io.IOException {
        return partFile.getSize() >= maxPartSizeBytes;
    }

    @Override
    public boolean shouldRollOnProcessingTime(PartFileInfo<String> partFile, long now) {
        return (inactivityMillis > 0 && now - partFile.getLastUpdateTime() >= inactivityMillis)
                || (rolloverMillis > 0 && now - partFile.getCreationTime() >= rolloverMillis);
    }
}
