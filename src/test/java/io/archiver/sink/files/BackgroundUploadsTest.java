package io.archiver.sink.files;

import io.archiver.fs.FileSystemContext;
import org.apache.flink.core.fs.Path;
import org.apache.flink.core.fs.RecoverableFsDataOutputStream;
import org.apache.flink.core.fs.RecoverableWriter;
import org.apache.flink.core.fs.local.LocalFileSystem;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link BackgroundUploads} over the local file system's recoverable writer (real files), with opens held back
 * or closes failed where a case needs it.
 */
class BackgroundUploadsTest {

    @TempDir
    java.nio.file.Path dir;

    private final List<BackgroundUploads> opened = new ArrayList<>();

    @AfterEach
    void close() {
        opened.forEach(BackgroundUploads::close);
    }

    @Test
    void bytesWrittenBeforeTheFileOpensAreCommittedFirstAndInOrder() throws Exception {
        HeldWriter held = new HeldWriter(local());
        BackgroundUploads uploads = uploads(held, 2);
        RecoverableFsDataOutputStream out = uploads.open(path("a"));
        out.write("early ".getBytes(StandardCharsets.UTF_8));
        out.write('1');
        held.release();
        out.write(" late".getBytes(StandardCharsets.UTF_8));
        assertThat(out.getPos()).isEqualTo(12);

        commit(uploads, out);

        assertThat(Files.readString(dir.resolve("a"))).isEqualTo("early 1 late");
    }

    @Test
    void writingPastTheEarlyLimitWaitsForTheOpenAndKeepsEveryByte() throws Exception {
        HeldWriter held = new HeldWriter(local());
        BackgroundUploads uploads = uploads(held, 2);
        RecoverableFsDataOutputStream out = uploads.open(path("big"));
        byte[] chunk = new byte[10_000];
        byte[] expected = new byte[3 * BackgroundUploadStream.MAX_EARLY_BYTES];
        CompletableFuture.runAsync(held::release, CompletableFuture.delayedExecutor(200, TimeUnit.MILLISECONDS));
        for (int written = 0; written < expected.length; written += chunk.length) {
            int n = Math.min(chunk.length, expected.length - written);
            Arrays.fill(chunk, (byte) ('a' + written / chunk.length % 26));
            System.arraycopy(chunk, 0, expected, written, n);
            out.write(chunk, 0, n);
        }

        commit(uploads, out);

        assertThat(Files.readAllBytes(dir.resolve("big"))).isEqualTo(expected);
    }

    @Test
    void filesClosedAtTheBarrierFinishTheirUploadsAtTheSameTime() throws Exception {
        int files = 4;
        CyclicBarrier allClosing = new CyclicBarrier(files);
        BackgroundUploads uploads = uploads(new ClosingWriter(local(), () -> {
            try {
                allClosing.await(30, TimeUnit.SECONDS); // one close after another would never get past this
            } catch (InterruptedException | BrokenBarrierException | TimeoutException e) {
                throw new IOException("the closes did not run at the same time", e);
            }
        }), files);
        List<RecoverableWriter.CommitRecoverable> pending = new ArrayList<>();
        for (int i = 0; i < files; i++) {
            RecoverableFsDataOutputStream out = uploads.open(path("f" + i));
            out.write(("file " + i).getBytes(StandardCharsets.UTF_8));
            pending.add(out.closeForCommit().getRecoverable());
        }

        uploads.awaitClosed();

        for (RecoverableWriter.CommitRecoverable p : pending) {
            uploads.recoverForCommit(p).commit();
        }
        for (int i = 0; i < files; i++) {
            assertThat(Files.readString(dir.resolve("f" + i))).isEqualTo("file " + i);
        }
    }

    @Test
    void aFailedUploadFailsTheWaitAtTheBarrier() throws Exception {
        BackgroundUploads uploads = uploads(new ClosingWriter(local(), () -> {
            throw new IOException("part upload refused");
        }), 2);
        RecoverableFsDataOutputStream out = uploads.open(path("refused"));
        out.write('x');
        RecoverableWriter.CommitRecoverable pending = out.closeForCommit().getRecoverable();

        assertThatThrownBy(uploads::awaitClosed).isInstanceOf(IOException.class).hasMessage("part upload refused");
        assertThatThrownBy(() -> uploads.getCommitRecoverableSerializer().serialize(pending))
                .isInstanceOf(IOException.class).hasMessage("part upload refused");
    }

    @Test
    void aFailedOpenFailsTheNextWriteThatNeedsTheFile() throws Exception {
        BackgroundUploads uploads = uploads(new HeldWriter(local()) {
            @Override
            public RecoverableFsDataOutputStream open(Path path) throws IOException {
                throw new IOException("upload start refused");
            }
        }, 1);
        RecoverableFsDataOutputStream out = uploads.open(path("refused"));

        assertThatThrownBy(out::persist).isInstanceOf(IOException.class).hasMessage("upload start refused");
    }

    @Test
    void pendingFilesSerializeAsTheFileSystemsOwnHandles() throws Exception {
        RecoverableWriter local = local();
        BackgroundUploads uploads = uploads(local, 1);
        RecoverableFsDataOutputStream out = uploads.open(path("s"));
        out.write('s');
        RecoverableWriter.CommitRecoverable pending = out.closeForCommit().getRecoverable();
        uploads.awaitClosed();

        SimpleVersionedSerializer<RecoverableWriter.CommitRecoverable> ours = uploads.getCommitRecoverableSerializer();
        SimpleVersionedSerializer<RecoverableWriter.CommitRecoverable> theirs = local.getCommitRecoverableSerializer();
        RecoverableWriter.CommitRecoverable finished = BackgroundUploads.PendingUpload.finished(pending);
        assertThat(finished).isNotInstanceOf(BackgroundUploads.PendingUpload.class);
        assertThat(ours.getVersion()).isEqualTo(theirs.getVersion());
        assertThat(ours.serialize(pending)).isEqualTo(theirs.serialize(finished));

        uploads.recoverForCommit(ours.deserialize(ours.getVersion(), ours.serialize(pending))).commit();
        assertThat(Files.readString(dir.resolve("s"))).isEqualTo("s");
    }

    private static void commit(BackgroundUploads uploads, RecoverableFsDataOutputStream out) throws IOException {
        RecoverableWriter.CommitRecoverable pending = out.closeForCommit().getRecoverable();
        uploads.awaitClosed();
        uploads.recoverForCommit(pending).commit();
    }

    private BackgroundUploads uploads(RecoverableWriter files, int threads) throws IOException {
        BackgroundUploads uploads = new BackgroundUploads(files, FileSystemContext.of(path("x")), threads);
        opened.add(uploads);
        return uploads;
    }

    private Path path(String name) {
        return new Path(dir.resolve(name).toUri());
    }

    private static RecoverableWriter local() throws IOException {
        return LocalFileSystem.getSharedInstance().createRecoverableWriter();
    }

    /** The local writer whose opens wait until {@link #release()}. */
    private static class HeldWriter extends DelegatingWriter {
        private final CountDownLatch released = new CountDownLatch(1);

        HeldWriter(RecoverableWriter files) {
            super(files);
        }

        void release() {
            released.countDown();
        }

        @Override
        public RecoverableFsDataOutputStream open(Path path) throws IOException {
            try {
                if (!released.await(30, TimeUnit.SECONDS)) {
                    throw new IOException("open never released");
                }
            } catch (InterruptedException e) {
                throw new IOException(e);
            }
            return super.open(path);
        }
    }

    /** The local writer whose streams run {@code beforeClose} when they close for commit. */
    private static final class ClosingWriter extends DelegatingWriter {
        private final IoAction beforeClose;

        ClosingWriter(RecoverableWriter files, IoAction beforeClose) {
            super(files);
            this.beforeClose = beforeClose;
        }

        @Override
        public RecoverableFsDataOutputStream open(Path path) throws IOException {
            RecoverableFsDataOutputStream s = super.open(path);
            return new RecoverableFsDataOutputStream() {
                @Override
                public void write(int b) throws IOException {
                    s.write(b);
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    s.write(b, off, len);
                }

                @Override
                public long getPos() throws IOException {
                    return s.getPos();
                }

                @Override
                public void flush() throws IOException {
                    s.flush();
                }

                @Override
                public void sync() throws IOException {
                    s.sync();
                }

                @Override
                public RecoverableWriter.ResumeRecoverable persist() throws IOException {
                    return s.persist();
                }

                @Override
                public Committer closeForCommit() throws IOException {
                    beforeClose.run();
                    return s.closeForCommit();
                }

                @Override
                public void close() throws IOException {
                    s.close();
                }
            };
        }
    }

    @FunctionalInterface
    private interface IoAction {
        void run() throws IOException;
    }

    private static class DelegatingWriter implements RecoverableWriter {
        private final RecoverableWriter files;

        DelegatingWriter(RecoverableWriter files) {
            this.files = files;
        }

        @Override
        public RecoverableFsDataOutputStream open(Path path) throws IOException {
            return files.open(path);
        }

        @Override
        public RecoverableFsDataOutputStream recover(ResumeRecoverable resumable) throws IOException {
            return files.recover(resumable);
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
        public RecoverableFsDataOutputStream.Committer recoverForCommit(CommitRecoverable recoverable) throws IOException {
            return files.recoverForCommit(recoverable);
        }

        @Override
        public SimpleVersionedSerializer<CommitRecoverable> getCommitRecoverableSerializer() {
            return files.getCommitRecoverableSerializer();
        }

        @Override
        public SimpleVersionedSerializer<ResumeRecoverable> getResumeRecoverableSerializer() {
            return files.getResumeRecoverableSerializer();
        }

        @Override
        public boolean supportsResume() {
            return files.supportsResume();
        }
    }
}
