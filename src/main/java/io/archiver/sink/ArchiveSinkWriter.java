package io.archiver.sink;

import io.archiver.fencing.ArchiveLease;
import io.archiver.record.ArchiveRecord;
import io.archiver.sink.files.FileStats;
import io.archiver.sink.files.FileWriterInContext;
import io.archiver.sink.files.SubtaskPartFiles;

import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.connector.file.sink.FileSinkCommittable;
import org.apache.flink.connector.file.sink.writer.FileWriterBucketState;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The file sink's writer, with each pending part file's committable carrying the offsets the file holds
 * (taken from its {@link SubtaskPartFiles}). Writing, rolling and state are the file writer's own; the writer also
 * renews the archive's lease.
 */
final class ArchiveSinkWriter
        implements StatefulSinkWriter<ArchiveRecord, FileWriterBucketState>,
                CommittingSinkWriter<ArchiveRecord, ArchiveCommittable> {

    private static final int STAMP_EVERY = 256;

    private final FileWriterInContext<ArchiveRecord> files;
    private final SubtaskPartFiles partFiles;
    private final ArchiveLease lease;
    private final boolean renewOnWrite;
    /** Writes until the next one reads the clock: the first after each checkpoint, then every {@link #STAMP_EVERY}. */
    private int untilStamp;
    /**
     * When a record was last written, read at the first write after each checkpoint and every {@link #STAMP_EVERY}
     * writes (never later than the last write, so a commit after it is always later still): {@code
     * lastWriteTimestamp} later than {@code lastCommitTimestamp} says records wait to become visible.
     */
    private volatile long lastWriteAt;

    /**
     * The lease is renewed at every checkpoint, so a task cut off from its JobManager (which can commit
     * nothing more) stops renewing; {@code renewOnWrite} also renews while writing, for jobs without checkpoints.
     */
    ArchiveSinkWriter(
            FileWriterInContext<ArchiveRecord> files, SubtaskPartFiles partFiles, ArchiveLease lease, boolean renewOnWrite) {
        this.files = files;
        this.partFiles = partFiles;
        this.lease = lease;
        this.renewOnWrite = renewOnWrite;
    }

    @Override
    public void write(ArchiveRecord record, Context context) throws IOException, InterruptedException {
        if (renewOnWrite) {
            lease.renewIfDue();
        }
        files.write(record, context);
        if (--untilStamp <= 0) {
            lastWriteAt = System.currentTimeMillis();
            untilStamp = STAMP_EVERY;
        }
    }

    /** Epoch ms of a recent write (see {@link #lastWriteAt}); 0 before the first. */
    long lastWriteAt() {
        return lastWriteAt;
    }

    @Override
    public void flush(boolean endOfInput) throws IOException, InterruptedException {
        files.flush(endOfInput);
    }

    @Override
    public Collection<ArchiveCommittable> prepareCommit() throws IOException, InterruptedException {
        untilStamp = 0;
        Collection<FileSinkCommittable> pending = files.prepareCommit();
        List<ArchiveCommittable> committables = new ArrayList<>(pending.size());
        for (FileSinkCommittable c : pending) {
            List<FileStats> stats = c.hasPendingFile() ? partFiles.takeFinished(c.getBucketId()) : List.of();
            committables.add(new ArchiveCommittable(c, stats, ArchiveCommittable.UNKNOWN_CHECKPOINT));
        }
        return committables;
    }

    @Override
    public List<FileWriterBucketState> snapshotState(long checkpointId) throws IOException {
        lease.renewIfDue();
        return files.snapshotState(checkpointId);
    }

    @Override
    public void close() throws Exception {
        lease.close();
        files.close();
    }
}
