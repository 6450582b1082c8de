package io.archiver.fencing;

import io.archiver.fs.MetadataObjects;

import org.apache.flink.core.fs.Path;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The lease object on a file system other than S3, its version a digest of its bytes. On the local file system a
 * compare-and-swap holds a lock on {@code <lease>.lock} (processes of one host) and a lock of this JVM (its
 * threads) while it compares and writes; on other file systems (HDFS, …) it compares and then writes, which a
 * writer racing in between can overwrite.
 */
final class FileSystemLeaseObject implements LeaseObject {

    /** This JVM's lock per lease file: a file lock is held per process, not per thread. */
    private static final Map<String, Object> JVM_LOCKS = new ConcurrentHashMap<>();

    private final Path path;

    FileSystemLeaseObject(Path path) {
        this.path = path;
    }

    @Override
    public Optional<Versioned> read() throws IOException {
        return MetadataObjects.read(path).map(bytes -> new Versioned(bytes, digest(bytes)));
    }

    @Override
    public boolean create(byte[] bytes) throws IOException {
        return swap(bytes, null);
    }

    @Override
    public boolean replace(byte[] bytes, String version) throws IOException {
        return swap(bytes, version);
    }

    /** Writes {@code bytes} if the object is at {@code version} (absent for null). */
    private boolean swap(byte[] bytes, String version) throws IOException {
        if (!isLocal()) {
            return compareAndWrite(bytes, version);
        }
        java.nio.file.Path lockFile = java.nio.file.Path.of(path.toUri().getPath() + ".lock");
        Files.createDirectories(lockFile.getParent());
        synchronized (JVM_LOCKS.computeIfAbsent(lockFile.toString(), k -> new Object())) {
            try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                    FileLock ignored = channel.lock()) {
                return compareAndWrite(bytes, version);
            }
        }
    }

    private boolean compareAndWrite(byte[] bytes, String version) throws IOException {
        Optional<String> current = read().map(Versioned::version);
        if (!current.equals(Optional.ofNullable(version))) {
            return false;
        }
        if (isLocal()) {
            // readers outside the lock see the old lease or the new one, never a part
            java.nio.file.Path file = java.nio.file.Path.of(path.toUri().getPath());
            java.nio.file.Path next = file.resolveSibling("." + file.getFileName() + ".next");
            Files.write(next, bytes);
            Files.move(next, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } else {
            MetadataObjects.write(path, bytes);
        }
        return true;
    }

    private boolean isLocal() {
        String scheme = path.toUri().getScheme();
        return scheme == null || scheme.equals("file");
    }

    @Override
    public void delete() throws IOException {
        path.getFileSystem().delete(path, false);
    }

    @Override
    public void close() {}

    private static String digest(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
