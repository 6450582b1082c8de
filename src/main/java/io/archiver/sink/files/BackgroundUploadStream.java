package io.archiver.sink.files;

import org.apache.flink.core.fs.RecoverableFsDataOutputStream;
import org.apache.flink.core.fs.RecoverableWriter;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;

/**
 * A part file of {@link BackgroundUploads}: written to at once while the file system opens it in the
 * background (the bytes written meanwhile wait in memory, at most {@link #MAX_EARLY_BYTES}, then writing
 * waits for the open), closed for commit in the background. Used by the task thread only; the file
 * system's stream is handed to the pool with the close and not touched here afterwards.
 */
final class BackgroundUploadStream extends RecoverableFsDataOutputStream {

    /** Bytes a file keeps in memory while its upload starts; a Parquet file writes almost nothing before it closes. */
    static final int MAX_EARLY_BYTES = 64 * 1024;

    private final CompletableFuture<RecoverableFsDataOutputStream> opening;
    private final BackgroundUploads uploads;
    private RecoverableFsDataOutputStream stream;
    private ByteArrayOutputStream early = new ByteArrayOutputStream();
    private long pos;

    BackgroundUploadStream(CompletableFuture<RecoverableFsDataOutputStream> opening, BackgroundUploads uploads) {
        this.opening = opening;
        this.uploads = uploads;
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        RecoverableFsDataOutputStream s = opened(early != null && early.size() + len > MAX_EARLY_BYTES);
        if (s != null) {
            s.write(b, off, len);
        } else {
            early.write(b, off, len);
        }
        pos += len;
    }

    /** The file system's stream once it is open (waiting for it if {@code wait}), else null; early bytes go first. */
    private RecoverableFsDataOutputStream opened(boolean wait) throws IOException {
        if (stream == null && (wait || opening.isDone())) {
            RecoverableFsDataOutputStream s = BackgroundUploads.await(opening);
            early.writeTo(s);
            early = null;
            stream = s;
        }
        return stream;
    }

    @Override
    public long getPos() {
        return pos;
    }

    @Override
    public void flush() throws IOException {
        if (stream != null) {
            stream.flush();
        }
    }

    @Override
    public void sync() throws IOException {
        opened(true).sync();
    }

    @Override
    public RecoverableWriter.ResumeRecoverable persist() throws IOException {
        return opened(true).persist();
    }

    @Override
    public Committer closeForCommit() throws IOException {
        CompletableFuture<Committer> upload;
        if (stream != null) {
            RecoverableFsDataOutputStream s = stream;
            upload = uploads.run(s::closeForCommit);
        } else {
            ByteArrayOutputStream bytes = early;
            upload = opening.thenCompose(s -> uploads.run(() -> {
                bytes.writeTo(s);
                return s.closeForCommit();
            }));
        }
        uploads.closing(upload);
        return new PendingCommitter(upload);
    }

    /** Abandons the file (its bytes are not committed): closes the file system's stream once it is open. */
    @Override
    public void close() throws IOException {
        if (stream != null) {
            stream.close();
        } else {
            opening.thenAccept(s -> {
                try {
                    s.close();
                } catch (IOException e) {
                    // abandoned: nothing of it is committed, and the stream holds only a local buffer file
                }
            });
        }
    }

    /** The committer of a file whose upload finishes in the background. */
    private static final class PendingCommitter implements Committer {

        private final BackgroundUploads.PendingUpload recoverable;
        private final CompletableFuture<Committer> upload;

        PendingCommitter(CompletableFuture<Committer> upload) {
            this.recoverable = new BackgroundUploads.PendingUpload(upload);
            this.upload = upload;
        }

        @Override
        public void commit() throws IOException {
            BackgroundUploads.await(upload).commit();
        }

        @Override
        public void commitAfterRecovery() throws IOException {
            BackgroundUploads.await(upload).commitAfterRecovery();
        }

        @Override
        public RecoverableWriter.CommitRecoverable getRecoverable() {
            return recoverable;
        }
    }
}
