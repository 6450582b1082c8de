package io.archiver.sink.files;

import io.archiver.fs.FileSystemContext;
import io.archiver.fs.S3EncryptionRequirement;
import io.archiver.fs.PoolThreads;

import org.apache.flink.api.common.JobInfo;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.connector.file.sink.FileSink;
import org.apache.flink.connector.file.sink.FileSinkCommittable;
import org.apache.flink.connector.file.sink.writer.DefaultFileWriterBucketFactory;
import org.apache.flink.connector.file.sink.writer.FileWriter;
import org.apache.flink.connector.file.sink.writer.FileWriterBucketState;
import org.apache.flink.core.fs.Path;
import org.apache.flink.core.fs.RecoverableWriter;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.metrics.groups.SinkWriterMetricGroup;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.SupportsPreCommitTopology;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.functions.sink.filesystem.BucketAssigner;
import org.apache.flink.streaming.api.functions.sink.filesystem.BulkBucketWriter;
import org.apache.flink.streaming.api.functions.sink.filesystem.OutputFileConfig;
import org.apache.flink.streaming.api.functions.sink.filesystem.rollingpolicies.CheckpointRollingPolicy;
import org.apache.flink.util.TemporaryClassLoaderContext;
import org.apache.flink.util.UserCodeClassLoader;

import java.io.IOException;
import java.util.Collection;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Consumer;

/**
 * Flink's {@link FileSink} working in the file system's {@link FileSystemContext}, its part files uploaded in
 * the background ({@link BackgroundUploads}). The writer is the file sink's own, built from the same parts as
 * {@code FileSink.forBulkFormat(...)} builds it but on the background-upload writer; it hands on the file
 * system's own committables, so the committer, the serializers and the topology are the file sink's and its
 * savepoints restore unchanged. The writer's calls ({@link FileWriterInContext}), the timers on which it rolls
 * inactive part files and the committer's commits run in the file system's context.
 */
public final class FileSinkInContext<IN>
        implements Sink<IN>,
                SupportsWriterState<IN, FileWriterBucketState>,
                SupportsWriterState.WithCompatibleState,
                SupportsCommitter<FileSinkCommittable>,
                SupportsPreCommitTopology<FileSinkCommittable, FileSinkCommittable> {

    private static final long serialVersionUID = 1L;

    /** The bare file sink of the same parts: its pre-commit topology and the state names it restores from. */
    private final FileSink<IN> files;
    private final String basePath;
    private final BulkWriter.Factory<IN> writers;
    private final BucketAssigner<IN, String> buckets;
    private final CheckpointRollingPolicy<IN, String> rolling;
    private final OutputFileConfig names;
    private final long bucketCheckInterval;
    private final int uploadThreads;
    private final S3EncryptionRequirement encryption;

    /**
     * Part files of {@code writers} under {@code basePath} in the buckets of {@code buckets}, rolled by
     * {@code rolling} (checked every {@code bucketCheckInterval} ms), named by {@code names}; each writer
     * starts and finishes up to {@code uploadThreads} uploads at once. Writers and committers refuse to start
     * where the file system does not apply {@code encryption}.
     */
    public FileSinkInContext(
            String basePath, BulkWriter.Factory<IN> writers, BucketAssigner<IN, String> buckets,
            CheckpointRollingPolicy<IN, String> rolling, OutputFileConfig names, long bucketCheckInterval, int uploadThreads,
            S3EncryptionRequirement encryption) {
        this.files = FileSink.forBulkFormat(new Path(basePath), writers)
                .withBucketAssigner(buckets)
                .withRollingPolicy(rolling)
                .withOutputFileConfig(names)
                .withBucketCheckInterval(bucketCheckInterval)
                .build();
        this.basePath = basePath;
        this.writers = writers;
        this.buckets = buckets;
        this.rolling = rolling;
        this.names = names;
        this.bucketCheckInterval = bucketCheckInterval;
        this.uploadThreads = uploadThreads;
        this.encryption = encryption;
    }

    @Override
    public FileWriterInContext<IN> createWriter(WriterInitContext context) throws IOException {
        return createWriter(context, writers, rolling);
    }

    @Override
    public FileWriterInContext<IN> restoreWriter(WriterInitContext context, Collection<FileWriterBucketState> state)
            throws IOException {
        return restoreWriter(context, state, writers, rolling);
    }

    /** A writer of part files written by {@code subtaskWriters} and rolled by {@code subtaskRolling}, one subtask's own. */
    public FileWriterInContext<IN> createWriter(
            WriterInitContext context, BulkWriter.Factory<IN> subtaskWriters, CheckpointRollingPolicy<IN, String> subtaskRolling)
            throws IOException {
        FileSystemContext fs = fileSystem();
        try (TemporaryClassLoaderContext ignored = fs.enter()) {
            return writer(context, fs, subtaskWriters, subtaskRolling);
        }
    }

    /** {@link #createWriter(WriterInitContext, BulkWriter.Factory, CheckpointRollingPolicy)}, restoring {@code state}. */
    public FileWriterInContext<IN> restoreWriter(
            WriterInitContext context, Collection<FileWriterBucketState> state,
            BulkWriter.Factory<IN> subtaskWriters, CheckpointRollingPolicy<IN, String> subtaskRolling) throws IOException {
        FileSystemContext fs = fileSystem();
        try (TemporaryClassLoaderContext ignored = fs.enter()) {
            FileWriterInContext<IN> writer = writer(context, fs, subtaskWriters, subtaskRolling);
            writer.initializeState(state);
            return writer;
        }
    }

    private FileWriterInContext<IN> writer(
            WriterInitContext context, FileSystemContext fs, BulkWriter.Factory<IN> subtaskWriters,
            CheckpointRollingPolicy<IN, String> subtaskRolling) throws IOException {
        BackgroundUploads uploads = new BackgroundUploads(recoverableWriter(), fs, uploadThreads);
        BulkBucketWriter<IN, String> partFiles = new BulkBucketWriter<>(uploads, subtaskWriters);
        FileWriter<IN> writer = new FileWriter<>(
                new Path(basePath),
                context.metricGroup(),
                buckets,
                new DefaultFileWriterBucketFactory<>(),
                partFiles,
                subtaskRolling,
                names,
                new TimersInContext(context, fs).getProcessingTimeService(),
                bucketCheckInterval);
        return new FileWriterInContext<>(writer, uploads, partFiles.getProperties().getPendingFileRecoverableSerializer(), fs);
    }

    private RecoverableWriter recoverableWriter() throws IOException {
        return new Path(basePath).getFileSystem().createRecoverableWriter();
    }

    private FileSystemContext fileSystem() throws IOException {
        encryption.verify(new Path(basePath));
        return FileSystemContext.of(new Path(basePath));
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
    public Committer<FileSinkCommittable> createCommitter(CommitterInitContext context) throws IOException {
        return new CommitsInContext(files.createCommitter(context), fileSystem());
    }

    @Override
    public SimpleVersionedSerializer<FileSinkCommittable> getCommittableSerializer() {
        return files.getCommittableSerializer();
    }

    @Override
    public SimpleVersionedSerializer<FileSinkCommittable> getWriteResultSerializer() {
        return files.getWriteResultSerializer();
    }

    @Override
    public DataStream<CommittableMessage<FileSinkCommittable>> addPreCommitTopology(
            DataStream<CommittableMessage<FileSinkCommittable>> committables) {
        return files.addPreCommitTopology(committables);
    }

    /** The file sink's committer, committing in the file system's context (S3A tidies up after a commit on a pool). */
    private static final class CommitsInContext implements Committer<FileSinkCommittable> {

        private final Committer<FileSinkCommittable> files;
        private final FileSystemContext fs;

        CommitsInContext(Committer<FileSinkCommittable> files, FileSystemContext fs) {
            this.files = files;
            this.fs = fs;
        }

        @Override
        public void commit(Collection<CommitRequest<FileSinkCommittable>> requests)
                throws IOException, InterruptedException {
            try (TemporaryClassLoaderContext ignored = fs.enter()) {
                files.commit(requests);
            }
        }

        @Override
        public void close() throws Exception {
            try {
                files.close();
            } finally {
                PoolThreads.forgetJobs(fs);
            }
        }
    }

    /** The writer's init context, with timer callbacks run in the file system's context. */
    private static final class TimersInContext implements WriterInitContext {

        private final WriterInitContext context;
        private final FileSystemContext fs;

        TimersInContext(WriterInitContext context, FileSystemContext fs) {
            this.context = context;
            this.fs = fs;
        }

        @Override
        public ProcessingTimeService getProcessingTimeService() {
            ProcessingTimeService timers = context.getProcessingTimeService();
            return new ProcessingTimeService() {
                @Override
                public long getCurrentProcessingTime() {
                    return timers.getCurrentProcessingTime();
                }

                @Override
                public ScheduledFuture<?> registerTimer(long time, ProcessingTimeCallback callback) {
                    return timers.registerTimer(time, t -> {
                        try (TemporaryClassLoaderContext ignored = fs.enter()) {
                            callback.onProcessingTime(t);
                        }
                    });
                }
            };
        }

        @Override
        public UserCodeClassLoader getUserCodeClassLoader() {
            return context.getUserCodeClassLoader();
        }

        @Override
        public MailboxExecutor getMailboxExecutor() {
            return context.getMailboxExecutor();
        }

        @Override
        public SinkWriterMetricGroup metricGroup() {
            return context.metricGroup();
        }

        @Override
        public SerializationSchema.InitializationContext asSerializationSchemaInitializationContext() {
            return context.asSerializationSchemaInitializationContext();
        }

        @Override
        public boolean isObjectReuseEnabled() {
            return context.isObjectReuseEnabled();
        }

        @Override
        public <T> TypeSerializer<T> createInputSerializer() {
            return context.createInputSerializer();
        }

        @Override
        public <MetaT> Optional<Consumer<MetaT>> metadataConsumer() {
            return context.metadataConsumer();
        }

        @Override
        public OptionalLong getRestoredCheckpointId() {
            return context.getRestoredCheckpointId();
        }

        @Override
        public JobInfo getJobInfo() {
            return context.getJobInfo();
        }

        @Override
        public TaskInfo getTaskInfo() {
            return context.getTaskInfo();
        }
    }
}
