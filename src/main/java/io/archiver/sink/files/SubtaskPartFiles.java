package io.archiver.sink.files;

import io.archiver.record.ArchiveRecord;

import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.streaming.api.functions.sink.filesystem.rollingpolicies.CheckpointRollingPolicy;

import java.util.List;

/**
 * The part-file state of one sink subtask, created with its writer ({@link PartFiles#forSubtask()}) and
 * handed to what needs it: the writer factory that records what each finished file holds and what each open
 * file buffers, the rolling policy that reads the buffered bytes, and the statistics the sink writer attaches
 * to each pending file. Used by the subtask's task thread only.
 */
public final class SubtaskPartFiles {

    private final BulkWriter.Factory<ArchiveRecord> writers;
    private final CheckpointRollingPolicy<ArchiveRecord, String> rolling;
    private final FinishedFiles finished;
    private final OpenFileMemory memory;

    SubtaskPartFiles(
            BulkWriter.Factory<ArchiveRecord> writers, CheckpointRollingPolicy<ArchiveRecord, String> rolling,
            FinishedFiles finished, OpenFileMemory memory) {
        this.writers = writers;
        this.rolling = rolling;
        this.finished = finished;
        this.memory = memory;
    }

    /** The writer factory the file writer of this subtask must write with. */
    public BulkWriter.Factory<ArchiveRecord> writers() {
        return writers;
    }

    /** The rolling policy the file writer of this subtask must roll with. */
    public CheckpointRollingPolicy<ArchiveRecord, String> rolling() {
        return rolling;
    }

    /** What the oldest finished file of {@code bucket} not handed out yet holds, per partition. */
    public List<FileStats> takeFinished(String bucket) {
        return finished.take(bucket);
    }

    public OpenFileMemory memory() {
        return memory;
    }
}
