package io.archiver.sink.files;

import io.archiver.fs.FileSystemContext;
import io.archiver.fs.PoolThreads;

import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.connector.file.sink.FileSinkCommittable;
import org.apache.flink.connector.file.sink.writer.FileWriter;
import org.apache.flink.connector.file.sink.writer.FileWriterBucketState;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.functions.sink.filesystem.InProgressFileWriter.PendingFileRecoverable;
import org.apache.flink.util.TemporaryClassLoaderContext;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The file sink's writer with every call run in the archive file system's {@link FileSystemContext} (writing
 * and rolling part files is where the S3 plugin starts its upload threads), over {@link BackgroundUploads}:
 * at the barrier it waits for every part file closed since the last one to finish its upload.
 */
public final class FileWriterInContext<IN>
        implements StatefulSinkWriter<IN, FileWriterBucketState>, CommittingSinkWriter<IN, FileSinkCommittable> {

    private final FileWriter<IN> files;
    private final BackgroundUploads uploads;
    private final SimpleVersionedSerializer<PendingFileRecoverable> pendingFiles;
    private final FileSystemContext context;

    /** {@code files} writes its part files with {@code uploads}, whose pending files {@code pendingFiles} serializes. */
    FileWriterInContext(
            FileWriter<IN> files, BackgroundUploads uploads, SimpleVersionedSerializer<PendingFileRecoverable> pendingFiles,
            FileSystemContext context) {
        this.files = files;
        this.uploads = uploads;
        this.pendingFiles = pendingFiles;
        this.context = context;
    }

    /** Restores the part files of a checkpoint or savepoint (pending ones are the committer's). */
    void initializeState(Collection<FileWriterBucketState> state) throws IOException {
        try (TemporaryClassLoaderContext ignored = context.enter()) {
            files.initializeState(state);
        }
    }

    @Override
    public void write(IN element, Context elementContext) throws IOException, InterruptedException {
        try (TemporaryClassLoaderContext ignored = context.enter()) {
            files.write(element, elementContext);
        }
    }

    @Override
    public void flush(boolean endOfInput) throws IOException, InterruptedException {
        try (TemporaryClassLoaderContext ignored = context.enter()) {
            files.flush(endOfInput);
        }
    }

    @Override
    public Collection<FileSinkCommittable> prepareCommit() throws IOException {
        try (TemporaryClassLoaderContext ignored = context.enter()) {
            Collection<FileSinkCommittable> committables = files.prepareCommit();
            uploads.awaitClosed();
            List<FileSinkCommittable> finished = new ArrayList<>(committables.size());
            for (FileSinkCommittable c : committables) {
                finished.add(c.hasPendingFile() ? new FileSinkCommittable(c.getBucketId(), fileSystemsOwn(c.getPendingFile())) : c);
            }
            return finished;
        }
    }

    /**
     * The pending file with the file system's own commit handle in place of the {@link BackgroundUploads}
     * handle of its finished upload (what a restore from a checkpoint would hand the committer), so the
     * committer and the position records see the file system's handles only.
     */
    private PendingFileRecoverable fileSystemsOwn(PendingFileRecoverable pending) throws IOException {
        return pendingFiles.deserialize(pendingFiles.getVersion(), pendingFiles.serialize(pending));
    }

    @Override
    public List<FileWriterBucketState> snapshotState(long checkpointId) throws IOException {
        try (TemporaryClassLoaderContext ignored = context.enter()) {
            return files.snapshotState(checkpointId);
        }
    }

    @Override
    public void close() throws Exception {
        try (TemporaryClassLoaderContext ignored = context.enter()) {
            files.close();
        } finally {
            uploads.close();
            PoolThreads.forgetJobs(context);
        }
    }
}
