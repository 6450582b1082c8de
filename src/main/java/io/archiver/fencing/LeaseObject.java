package io.archiver.fencing;

import io.archiver.fs.S3BucketAccess;

import org.apache.flink.core.fs.Path;

import java.io.IOException;
import java.util.Optional;

/**
 * The lease object with compare-and-swap writes: read with its version, then replaced only if still at that
 * version, or created only if absent. A renewal or take-over that lost a race to another writer learns so
 * ({@code false}) instead of overwriting it. On S3 the versions are ETags and the writes conditional requests
 * ({@link S3LeaseObject}); elsewhere {@link FileSystemLeaseObject}.
 */
interface LeaseObject extends AutoCloseable {

    /** The object's bytes and version; empty when there is none. */
    Optional<Versioned> read() throws IOException;

    /** Writes {@code bytes} if there is no object yet; false if there is. */
    boolean create(byte[] bytes) throws IOException;

    /** Writes {@code bytes} if the object is still at {@code version}; false if it changed or went meanwhile. */
    boolean replace(byte[] bytes, String version) throws IOException;

    void delete() throws IOException;

    @Override
    void close();

    /** The object at {@code path}: conditional S3 requests where the S3 plugin serves it, else the file system's. */
    static LeaseObject at(Path path) throws IOException {
        Optional<S3BucketAccess> s3 = S3BucketAccess.ofFileSystem(path);
        return s3.isPresent() ? new S3LeaseObject(path, s3.get()) : new FileSystemLeaseObject(path);
    }

    /** An object's bytes and the version they were read at. */
    record Versioned(byte[] bytes, String version) {}
}
