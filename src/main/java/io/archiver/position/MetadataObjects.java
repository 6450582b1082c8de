package io.archiver.position;

import io.archiver.fs.FileSystemContext;

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
 * every version of these objects is complete.
 */
public final class MetadataObjects {

    private static final int READ_ATTEMPTS = 5;

    private MetadataObjects() {}

    public static Optional<byte[]> read(Path path) throws IOException {
        for (int attempt = 1; ; attempt++) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(1024);
            try (TemporaryClassLoaderContext ignored = FileSystemContext.of(path).enter();
                    FSDataInputStream in = path.getFileSystem().open(path)) {
                in.transferTo(bytes);
                return Optional.of(bytes.toByteArray());
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
    }

    private static boolean replacedWhileRead(IOException e) {
        return e.getClass().getSimpleName().equals("RemoteFileChangedException")
                || String.valueOf(e.getMessage()).contains("Change reported by S3");
    }
}
