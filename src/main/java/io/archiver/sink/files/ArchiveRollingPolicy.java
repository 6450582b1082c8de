package io.archiver.sink.files;

import io.archiver.record.ArchiveRecord;

import org.apache.flink.streaming.api.functions.sink.filesystem.PartFileInfo;
import org.apache.flink.streaming.api.functions.sink.filesystem.rollingpolicies.CheckpointRollingPolicy;

import javax.annotation.Nullable;

/**
 * Closes part files on every checkpoint (so the checkpoint carries every pending file and a restore never
 * resumes a half-written compressed file), and in between once a file reaches a size, has been inactive
 * for a while, or has been open for a while (zero disables a time condition). A sink subtask's own copy
 * ({@link #forSubtask}) also closes a file when the open files buffer more memory than their budget and this
 * one holds at least its share ({@link OpenFileMemory}), and before a record its schema cannot take ({@link SchemaBoundFiles}).
 */
public final class ArchiveRollingPolicy extends CheckpointRollingPolicy<ArchiveRecord, String> {

    private static final long serialVersionUID = 1L;

    private final long maxPartSizeBytes;
    private final long inactivityMillis;
    private final long rolloverMillis;
    /** The subtask's open-file memory; never part of the job graph. */
    @Nullable private final transient OpenFileMemory memory;
    /** The subtask's open files whose schema may not take a record; never part of the job graph. */
    @Nullable private final transient SchemaBoundFiles schemaBound;

    public ArchiveRollingPolicy(long maxPartSizeBytes, long inactivityMillis, long rolloverMillis) {
        this(maxPartSizeBytes, inactivityMillis, rolloverMillis, null, null);
    }

    private ArchiveRollingPolicy(
            long maxPartSizeBytes, long inactivityMillis, long rolloverMillis, @Nullable OpenFileMemory memory,
            @Nullable SchemaBoundFiles schemaBound) {
        this.maxPartSizeBytes = maxPartSizeBytes;
        this.inactivityMillis = inactivityMillis;
        this.rolloverMillis = rolloverMillis;
        this.memory = memory;
        this.schemaBound = schemaBound;
    }

    /**
     * This policy for one sink subtask, also closing files to keep its open files within {@code memory}, and before
     * a record whose schema an open file cannot take ({@code schemaBound}).
     */
    ArchiveRollingPolicy forSubtask(OpenFileMemory memory, SchemaBoundFiles schemaBound) {
        return new ArchiveRollingPolicy(maxPartSizeBytes, inactivityMillis, rolloverMillis, memory, schemaBound);
    }

    @Override
    public boolean shouldRollOnEvent(PartFileInfo<String> partFile, ArchiveRecord element) throws java.io.IOException {
        return partFile.getSize() >= maxPartSizeBytes || overMemory(partFile)
                || (schemaBound != null && !schemaBound.accepts(partFile.getBucketId(), element));
    }

    @Override
    public boolean shouldRollOnProcessingTime(PartFileInfo<String> partFile, long now) {
        return (inactivityMillis > 0 && now - partFile.getLastUpdateTime() >= inactivityMillis)
                || (rolloverMillis > 0 && now - partFile.getCreationTime() >= rolloverMillis)
                || overMemory(partFile);
    }

    private boolean overMemory(PartFileInfo<String> partFile) {
        return memory != null && memory.shouldClose(partFile.getBucketId());
    }
}
