package io.archiver.sink.files;

import io.archiver.record.ArchiveRecord;

import org.apache.flink.api.common.serialization.BulkWriter;

import java.io.Serializable;

/**
 * How the archive sink writes its part files, the same for every subtask and part of the job graph: the
 * format's writer factory, the folder of each record, when files roll and the heap budget of a subtask's open
 * files. {@link #forSubtask()} makes the parts that keep one subtask's state.
 */
public final class PartFiles implements Serializable {

    private static final long serialVersionUID = 1L;

    private final BulkWriter.Factory<ArchiveRecord> format;
    private final ArchiveBucketAssigner buckets;
    private final ArchiveRollingPolicy rolling;
    private final long memoryBudgetBytes;
    private final long minimumToClose;

    /**
     * Open files of a subtask buffering more than {@code memoryBudgetBytes} (0: no bound) are closed early,
     * those holding at least {@code minimumToClose} bytes ({@link OpenFileMemory}).
     */
    public PartFiles(
            BulkWriter.Factory<ArchiveRecord> format, ArchiveBucketAssigner buckets, ArchiveRollingPolicy rolling,
            long memoryBudgetBytes, long minimumToClose) {
        this.format = format;
        this.buckets = buckets;
        this.rolling = rolling;
        this.memoryBudgetBytes = memoryBudgetBytes;
        this.minimumToClose = minimumToClose;
    }

    /** The parts of one new sink subtask writer. */
    public SubtaskPartFiles forSubtask() {
        FinishedFiles finished = new FinishedFiles();
        OpenFileMemory memory = new OpenFileMemory(memoryBudgetBytes, minimumToClose);
        SchemaBoundFiles schemaBound = new SchemaBoundFiles();
        return new SubtaskPartFiles(
                new StatsTrackingWriterFactory(format, buckets, finished, memory, schemaBound),
                rolling.forSubtask(memory, schemaBound), finished, memory);
    }
}
