package io.archiver.sink.files;

import io.archiver.fs.FileSystemContext;

import org.apache.flink.core.fs.Path;
import org.apache.flink.core.fs.RecoverableFsDataOutputStream;
import org.apache.flink.core.fs.RecoverableWriter;
import org.apache.flink.core.io.SimpleVersionedSerializer;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A file system's {@link RecoverableWriter} whose part files start their uploads ({@link #open}) and finish
 * them ({@link RecoverableFsDataOutputStream#closeForCommit}) on a pool of {@code threads}, so the task
 * thread does not wait for S3, one file after another, when a file opens or closes.
 *
 * <p>Flink's S3 writer starts a multipart upload when a file opens and uploads its last part when it closes,
 * both in the caller's thread: with one file per partition per checkpoint, a subtask of many partitions
 * would spend most of its time waiting for those round trips in turn. Here a file is written to the moment it is
 * opened (bytes wait in memory until its upload has started, {@link BackgroundUploadStream}), and a file
 * closed at the barrier or by a roll finishes in the background; {@link #awaitClosed()} is the one wait, at
 * the barrier ({@link FileWriterInContext#prepareCommit()}), so every committable the writer hands on holds
 * a finished upload and a failed upload fails the checkpoint.
 *
 * <p>A {@link PendingUpload} (the commit handle of a file still finishing) serializes as the file system's
 * handle it completes to; the writer hands on only those ({@link FileWriterInContext}), and
 * {@link #recoverForCommit} accepts both.
 */
final class BackgroundUploads implements RecoverableWriter, AutoCloseable {

    private final RecoverableWriter files;
    private final FileSystemContext context;
    private final int threads;
    /** Closes started since the last {@link #awaitClosed()}; touched by the task thread only. */
    private final List<CompletableFuture<?>> closing = new ArrayList<>();
    private ExecutorService pool;

    /** {@code threads}: uploads started or finished at once; the pool's threads run in {@code context}. */
    BackgroundUploads(RecoverableWriter files, FileSystemContext context, int threads) {
        this.files = files;
        this.context = context;
        this.threads = threads;
    }

    @Override
    public RecoverableFsDataOutputStream open(Path path) throws IOException {
        return new BackgroundUploadStream(run(() -> files.open(path)), this);
    }

    @Override
    public RecoverableFsDataOutputStream recover(ResumeRecoverable resumable) throws IOException {
        return new BackgroundUploadStream(CompletableFuture.completedFuture(files.recover(resumable)), this);
    }

    /** Runs {@code work} on the pool. */
    <T> CompletableFuture<T> run(Upload<T> work) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return work.call();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, pool());
    }

    /** Keeps a file's close until the next {@link #awaitClosed()}. */
    void closing(CompletableFuture<?> close) {
        closing.removeIf(c -> c.isDone() && !c.isCompletedExceptionally());
        closing.add(close);
    }

    /** Waits until every file closed since the last call has finished its upload; the first failure is thrown. */
    void awaitClosed() throws IOException {
        try {
            for (CompletableFuture<?> close : closing) {
                await(close);
            }
        } finally {
            closing.clear();
        }
    }

    /** The result of {@code future}, with the {@link IOException} it failed with. */
    static <T> T await(CompletableFuture<T> future) throws IOException {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for an upload");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() instanceof UncheckedIOException ? e.getCause().getCause() : e.getCause();
            throw cause instanceof IOException ? (IOException) cause : new IOException("upload failed", cause);
        }
    }

    private ExecutorService pool() {
        if (pool == null) {
            pool = Executors.newFixedThreadPool(threads, context.threads("archive-uploads"));
        }
        return pool;
    }

    @Override
    public RecoverableFsDataOutputStream.Committer recoverForCommit(CommitRecoverable recoverable) throws IOException {
        return files.recoverForCommit(PendingUpload.finished(recoverable));
    }

    @Override
    public SimpleVersionedSerializer<CommitRecoverable> getCommitRecoverableSerializer() {
        return new PendingUpload.Serializer(files.getCommitRecoverableSerializer());
    }

    @Override
    public SimpleVersionedSerializer<ResumeRecoverable> getResumeRecoverableSerializer() {
        return files.getResumeRecoverableSerializer();
    }

    @Override
    public boolean requiresCleanupOfRecoverableState() {
        return files.requiresCleanupOfRecoverableState();
    }

    @Override
    public boolean cleanupRecoverableState(ResumeRecoverable resumable) throws IOException {
        return files.cleanupRecoverableState(resumable);
    }

    @Override
    public boolean supportsResume() {
        return files.supportsResume();
    }

    /** Stops the pool: uploads still running are interrupted (the writer is closing: its files are abandoned). */
    @Override
    public void close() {
        if (pool != null) {
            pool.shutdownNow();
        }
    }

    /** A call to the file system that may fail with an {@link IOException}. */
    @FunctionalInterface
    interface Upload<T> {
        T call() throws IOException;
    }

    /**
     * The commit handle of a file whose upload is finishing in the background: it is the file system's own
     * handle once the upload finished, and serializes as that.
     */
    static final class PendingUpload implements CommitRecoverable {

        private final CompletableFuture<RecoverableFsDataOutputStream.Committer> upload;

        PendingUpload(CompletableFuture<RecoverableFsDataOutputStream.Committer> upload) {
            this.upload = upload;
        }

        /** The file system's handle of {@code recoverable}, waiting for its upload if it is still finishing. */
        static CommitRecoverable finished(CommitRecoverable recoverable) throws IOException {
            return recoverable instanceof PendingUpload
                    ? await(((PendingUpload) recoverable).upload).getRecoverable()
                    : recoverable;
        }

        /** The file system's serializer, for handles finished or still finishing. */
        static final class Serializer implements SimpleVersionedSerializer<CommitRecoverable> {

            private final SimpleVersionedSerializer<CommitRecoverable> files;

            Serializer(SimpleVersionedSerializer<CommitRecoverable> files) {
                this.files = files;
            }

            @Override
            public int getVersion() {
                return files.getVersion();
            }

            @Override
            public byte[] serialize(CommitRecoverable recoverable) throws IOException {
                return files.serialize(finished(recoverable));
            }

            @Override
            public CommitRecoverable deserialize(int version, byte[] serialized) throws IOException {
                return files.deserialize(version, serialized);
            }
        }
    }
}
