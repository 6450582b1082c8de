package io.archiver.sink;

import io.archiver.position.ArchiveLease;
import io.archiver.position.PositionStore;
import io.archiver.record.ArchiveRecord;

import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.connector.file.sink.writer.FileWriterBucketState;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessageTypeInfo;
import org.apache.flink.streaming.api.connector.sink2.SupportsPreCommitTopology;
import org.apache.flink.streaming.api.datastream.DataStream;

import java.io.IOException;
import java.util.Collection;

/**
 * The archive sink: Flink's two-phase-commit file sink (its writer, rolling, writer state and committer
 * are used unchanged, in the file system's context: {@link FileSinkInContext}; savepoints of the bare file
 * sink restore), with committables that know
 * which offsets each part file holds and in which checkpoint it became pending. The committer uses that to
 * write the archive's position records before it commits and to log every committed file. Writers renew
 * the archive's lease and the committer checks it before every commit.
 */
public final class ArchiveSink
        implements Sink<ArchiveRecord>,
                SupportsWriterState<ArchiveRecord, FileWriterBucketState>,
                SupportsWriterState.WithCompatibleState,
                SupportsCommitter<ArchiveCommittable>,
                SupportsPreCommitTopology<ArchiveCommittable, ArchiveCommittable> {

    private static final long serialVersionUID = 1L;

    private final FileSinkInContext<ArchiveRecord> files;
    private final StatsTrackingWriterFactory tracking;
    private final PositionStore positions;
    private final ArchiveLease lease;
    private final boolean bounded;
    private final LogEndProbe logEnds;
    private final int commitThreads;

    /**
     * {@code files} must write its part files with {@code tracking}; {@code bounded}: batch mode, no checkpoints;
     * the committer runs up to {@code commitThreads} S3 requests at once.
     */
    ArchiveSink(
            FileSinkInContext<ArchiveRecord> files, StatsTrackingWriterFactory tracking, PositionStore positions, ArchiveLease lease,
            boolean bounded, LogEndProbe logEnds, int commitThreads) {
        this.files = files;
        this.tracking = tracking;
        this.positions = positions;
        this.lease = lease;
        this.bounded = bounded;
        this.logEnds = logEnds;
        this.commitThreads = commitThreads;
    }

    @Override
    public ArchiveSinkWriter createWriter(WriterInitContext context) throws IOException {
        return writer(files.createWriter(context), context);
    }

    @Override
    public StatefulSinkWriter<ArchiveRecord, FileWriterBucketState> restoreWriter(
            WriterInitContext context, Collection<FileWriterBucketState> state) throws IOException {
        return writer(files.restoreWriter(context, state), context);
    }

    private ArchiveSinkWriter writer(FileWriterInContext<ArchiveRecord> fileWriter, WriterInitContext context) {
        OpenFileMemory memory = tracking.memory();
        context.metricGroup().gauge("partFilesBufferedBytes", memory::bufferedBytes);
        context.metricGroup().gauge("partFilesClosedForMemory", memory::filesClosedEarly);
        return new ArchiveSinkWriter(fileWriter, tracking.finishedFiles(), lease, bounded);
    }

    @Override
    public SimpleVersionedSerializer<FileWriterBucketState> getWriterStateSerializer() {
        return files.getWriterStateSerializer();
    }

    @Override
    public Collection<String> getCompatibleWriterStateNames() {
        return files.getCompatibleWriterStateNames();
    }

    @Override
    public Committer<ArchiveCommittable> createCommitter(CommitterInitContext context) throws IOException {
        return new ArchiveCommitter(
                files.createCommitter(context), positions, lease, logEnds, context.metricGroup(), commitThreads);
    }

    @Override
    public SimpleVersionedSerializer<ArchiveCommittable> getCommittableSerializer() {
        return new ArchiveCommittableSerializer(files.getCommittableSerializer());
    }

    @Override
    public SimpleVersionedSerializer<ArchiveCommittable> getWriteResultSerializer() {
        return getCommittableSerializer();
    }

    @Override
    public DataStream<CommittableMessage<ArchiveCommittable>> addPreCommitTopology(
            DataStream<CommittableMessage<ArchiveCommittable>> committables) {
        return committables
                .map(new CheckpointIdTagger())
                .returns(CommittableMessageTypeInfo.of(this::getCommittableSerializer))
                .uid("checkpoint-ids")
                .name("Checkpoint ids");
    }
}
