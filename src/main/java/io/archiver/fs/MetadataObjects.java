package io.archiver.fs;



import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.util.TemporaryClassLoaderContext;

import java.io.ByteArrayOutputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.Optional;

/**
 * Reads and writes the archive's small metadata objects (position records, the lease) whole, in the file
 * system's {@link FileSystemContext} (the S3 plugin uploads an object, and drains a closed stream, on pool
 * threads that it may start then). An object
 * replaced while it is read makes S3A fail the read ("change reported by S3"): the read is repeated, since
 * every version of these objects is complete. So is one read cut short, as a store whose overwrite is not
 * atomic can hand out ({@link #completeJson}).
 */
public final class MetadataObjects {

    private static final int READ_ATTEMPTS = 5;
    private static final long RETRY_PAUSE_MILLIS = 50;
    private static final JsonFactory JSON = new JsonFactory();

    private MetadataObjects() {}

    public static Optional<byte[]> read(Path path) throws IOException {
        for (int attempt = 1; ; attempt++) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(1024);
            try (TemporaryClassLoaderContext ignored = FileSystemContext.of(path).enter();
                    FSDataInputStream in = path.getFileSystem().open(path)) {
                in.transferTo(bytes);
                if (attempt < READ_ATTEMPTS && !completeJson(bytes.toByteArray())) {
                    Thread.sleep(RETRY_PAUSE_MILLIS);
                    continue;
                }
                return Optional.of(bytes.toByteArray());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("Interrupted while reading " + path);
            } catch (FileNotFoundException e) {
                return Optional.empty();
            } catch (IOException e) {
                if (attempt >= READ_ATTEMPTS || !replacedWhileRead(e)) {
                    throw e;
                }
            }
        }
    }

    public static void write(Path path, byte[] bytes) throws IOException {
        try (TemporaryClassLoaderContext ignored = FileSystemContext.of(path).enter();
                FSDataOutputStream out = path.getFileSystem().create(path, FileSystem.WriteMode.OVERWRITE)) {
            out.write(bytes);
        }
        failIfInterrupted(path);
    }

    /**
     * Fails when the thread was interrupted while it closed a stream it wrote {@code path} with: S3A then returns from
     * {@code close()} without an error and without knowing whether the object was written (it gives up waiting for the
     * upload and only sets the interrupt flag again), so a write is not taken as done.
     */
    public static void failIfInterrupted(Path path) throws java.io.InterruptedIOException {
        if (Thread.currentThread().isInterrupted()) {
            throw new java.io.InterruptedIOException("Interrupted while writing " + path + ": the object may not have been written");
        }
    }

    /**
     * Whether {@code bytes} are a whole JSON document. Every metadata object is; a store whose overwrite is not
     * atomic (S3-compatible servers on a file system) may hand out an object while it is being replaced, cut
     * short, and the read is repeated then.
     */
    public static boolean completeJson(byte[] bytes) {
        if (bytes.length == 0) {
            return false;
        }
        try (JsonParser p = JSON.createParser(bytes)) {
            while (p.nextToken() != null) {
                p.skipChildren();
            }
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean replacedWhileRead(IOException e) {
        return e.getClass().getSimpleName().equals("RemoteFileChangedException")
                || String.valueOf(e.getMessage()).contains("Change reported by S3");
    }
}
