package io.archiver.sink;

import io.archiver.archive.ArchiveRoot;
import io.archiver.capture.CaptureSettings;
import io.archiver.capture.ClusterCapture;
import io.archiver.erase.ErasureLog;
import io.archiver.fencing.ArchiveLease;
import io.archiver.kafka.LogEndProbe;
import io.archiver.metrics.ArchiverMetric;
import io.archiver.position.PendingUploads;
import io.archiver.position.PositionStore;
import io.archiver.position.SubtaskPositions;
import io.archiver.record.ArchiveRecord;
import io.archiver.sink.files.FileSinkInContext;
import io.archiver.sink.files.FileWriterInContext;
import io.archiver.sink.files.OpenFileMemory;
import io.archiver.sink.files.PartFiles;
import io.archiver.sink.files.SubtaskPartFiles;
import io.archiver.table.TableSettings;

import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.connector.file.sink.writer.FileWriterBucketState;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessageTypeInfo;
import org.apache.flink.streaming.api.connector.sink2.StandardSinkTopologies;
import org.apache.flink.streaming.api.connector.sink2.SupportsPostCommitTopology;
import org.apache.flink.streaming.api.connector.sink2.SupportsPreCommitTopology;
import org.apache.flink.streaming.api.datastream.DataStream;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Collection;
import java.util.Properties;
import java.util.Set;

/**
 * The archive sink: Flink's two-phase-commit file sink (its writer, rolling, writer state and committer
 * are used unchanged, in the file system's context: {@link FileSinkInContext}; savepoints of the bare file
 * sink restore), with committables that know which offsets each part file holds and in which checkpoint it
 * became pending. The committer uses that to write the archive's position records before it commits and to
 * log every committed file. Writers renew the archive's lease and the committer checks it before every commit.
 *
 * <pre>
 *  records ──► ArchiveSinkWriter ──► "Checkpoint ids" ──► ArchiveCommitter ──► TableCommitter
 *              (one per subtask:      (map, uid            (checks the lease, writes    (table.format: iceberg;
 *               part files, their      checkpoint-ids:      position records, completes   Flink's global committer:
 *               offsets, the lease)    tags committables)   the uploads, logs and counts  a snapshot per topic and
 *                                                           committed files)              checkpoint)
 * </pre>
 *
 * <p>Each writer's state of its own (the offsets of the part files it finished, the heap its open files
 * hold) is created with it ({@link SubtaskPartFiles}); the sink itself holds settings only.
 */
public final class ArchiveSink
        implements Sink<ArchiveRecord>,
                SupportsWriterState<ArchiveRecord, FileWriterBucketState>,
                SupportsWriterState.WithCompatibleState,
                SupportsCommitter<ArchiveCommittable>,
                SupportsPreCommitTopology<ArchiveCommittable, ArchiveCommittable>,
                SupportsPostCommitTopology<ArchiveCommittable> {

    private static final long serialVersionUID = 1L;

    private final FileSinkInContext<ArchiveRecord> files;
    private final PartFiles partFiles;
    private final PositionStore positions;
    private final ArchiveLease lease;
    private final boolean bounded;
    /** The Kafka client settings of the committer's lag probe. */
    private final Properties kafkaClient;
    private final int commitThreads;
    private final CaptureSettings capture;
    /** Uploads under the root started this long ago and still incomplete are aborted ({@link OrphanedUploadSweep}); 0: never. */
    private final Duration abortOrphanedUploadsAfter;
    /** The topics' tables every checkpoint's files are appended to ({@link TableCommitter}); null: none. */
    private final TableSettings table;

    /**
     * Part files of {@code files}, each subtask writing them as {@code partFiles} says; {@code bounded}: batch
     * mode, no checkpoints; the committer runs up to {@code commitThreads} S3 requests at once and measures the
     * archive lag with a Kafka client of {@code kafkaClient}, with which its first subtask also captures what
     * {@code capture} names; its first subtask also aborts uploads left incomplete for {@code abortOrphanedUploadsAfter};
     * with {@code table} (may be null), the committed files are appended to the topics' tables.
     */
    ArchiveSink(
            FileSinkInContext<ArchiveRecord> files, PartFiles partFiles, PositionStore positions, ArchiveLease lease,
            boolean bounded, Properties kafkaClient, int commitThreads, CaptureSettings capture, Duration abortOrphanedUploadsAfter,
            TableSettings table) {
        this.files = files;
        this.partFiles = partFiles;
        this.positions = positions;
        this.lease = lease;
        this.bounded = bounded;
        this.kafkaClient = kafkaClient;
        this.commitThreads = commitThreads;
        this.capture = capture;
        this.abortOrphanedUploadsAfter = abortOrphanedUploadsAfter;
        this.table = table;
    }

    @Override
    public ArchiveSinkWriter createWriter(WriterInitContext context) throws IOException {
        SubtaskPartFiles subtask = partFiles.forSubtask();
        return writer(files.createWriter(context, subtask.writers(), subtask.rolling()), subtask, context);
    }

    @Override
    public ArchiveSinkWriter restoreWriter(WriterInitContext context, Collection<FileWriterBucketState> state)
            throws IOException {
        SubtaskPartFiles subtask = partFiles.forSubtask();
        return writer(files.restoreWriter(context, state, subtask.writers(), subtask.rolling()), subtask, context);
    }

    private ArchiveSinkWriter writer(
            FileWriterInContext<ArchiveRecord> fileWriter, SubtaskPartFiles subtask, WriterInitContext context) {
        OpenFileMemory memory = subtask.memory();
        ArchiverMetric.PART_FILES_BUFFERED_BYTES.gauge(context.metricGroup(), memory::bufferedBytes);
        ArchiverMetric.PART_FILES_CLOSED_FOR_MEMORY.gauge(context.metricGroup(), memory::filesClosedEarly);
        ArchiveLease jobLease = lease.forJob(context.getJobInfo().getJobId().toHexString());
        ArchiverMetric.LEASE_TAKEN_OVER_AFTER_EXPIRY.gauge(context.metricGroup(), () -> jobLease.tookOverExpired() ? 1 : 0);
        ArchiveSinkWriter writer = new ArchiveSinkWriter(fileWriter, subtask, jobLease, bounded);
        ArchiverMetric.LAST_WRITE_TIMESTAMP.gauge(context.metricGroup(), writer::lastWriteAt);
        return writer;
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
        int subtask = context.getTaskInfo().getIndexOfThisSubtask();
        return new ArchiveCommitter(
                files.createCommitter(context), new SubtaskPositions(positions, subtask),
                new PendingUploads(positions.root()), lease, new LogEndProbe(kafkaClient),
                ClusterCapture.forCommitter(capture, kafkaClient, subtask),
                OrphanedUploadSweep.forCommitter(positions.root(), abortOrphanedUploadsAfter, lease, subtask,
                        context.getRestoredCheckpointId(), context.metricGroup()),
                context.metricGroup(), commitThreads,
                context.getRestoredCheckpointId().isPresent() ? new ErasureLog(positions.root()).rewrittenFiles() : Set.of());
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

    /** With a table, Flink's global committer after the archive's committers: {@link TableCommitter}. */
    @Override
    public void addPostCommitTopology(DataStream<CommittableMessage<ArchiveCommittable>> committables) {
        if (table == null) {
            return;
        }
        TableSettings settings = table;
        ArchiveLease tableLease = lease;
        ArchiveRoot root = positions.root();
        int threads = commitThreads;
        StandardSinkTopologies.addGlobalCommitter(
                committables,
                context -> {
                    try {
                        return TableCommitter.create(context, settings, tableLease, root, threads);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                },
                this::getCommittableSerializer);
    }
}
