package io.archiver.fencing;

import io.archiver.fs.MetadataObjects;
import io.archiver.fs.S3BucketAccess;

import org.apache.flink.core.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.DeleteObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;

import java.io.IOException;
import java.util.Arrays;
import java.util.Optional;

/**
 * The lease object on S3, written with conditional requests: a replacement carries {@code If-Match: <ETag read>}
 * and a creation {@code If-None-Match: *}, so S3 refuses (412, or 409 for a concurrent conditional write) the
 * write of whoever lost a race. The server-side encryption is the file system's for the bucket, as for every
 * object the job writes.
 */
final class S3LeaseObject implements LeaseObject {

    private static final Logger LOG = LoggerFactory.getLogger(S3LeaseObject.class);

    private static final int READ_ATTEMPTS = 5;
    private static final long RETRY_PAUSE_MILLIS = 50;

    private final S3BucketAccess access;
    private final String bucket;
    private final String key;
    private final S3Client client;

    S3LeaseObject(Path path, S3BucketAccess access) {
        this.access = access;
        this.bucket = path.toUri().getHost();
        this.key = path.toUri().getPath().replaceFirst("^/", "");
        this.client = access.client();
    }

    @Override
    public Optional<Versioned> read() throws IOException {
        for (int attempt = 1; ; attempt++) {
            try {
                ResponseBytes<GetObjectResponse> object =
                        client.getObjectAsBytes(GetObjectRequest.builder().bucket(bucket).key(key).build());
                byte[] bytes = object.asByteArray();
                // a store whose overwrite is not atomic (a server on a file system) may hand out a write in progress
                if (attempt < READ_ATTEMPTS && !MetadataObjects.completeJson(bytes)) {
                    pause();
                    continue;
                }
                return Optional.of(new Versioned(bytes, object.response().eTag()));
            } catch (S3Exception e) {
                if (e.statusCode() == 404) {
                    return Optional.empty();
                }
                throw failure("read", e);
            }
        }
    }

    private static void pause() throws IOException {
        try {
            Thread.sleep(RETRY_PAUSE_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("Interrupted while reading the archive's lease");
        }
    }

    @Override
    public boolean create(byte[] bytes) throws IOException {
        return put(bytes, PutObjectRequest.builder().ifNoneMatch("*"));
    }

    @Override
    public boolean replace(byte[] bytes, String version) throws IOException {
        return put(bytes, PutObjectRequest.builder().ifMatch(version));
    }

    private boolean put(byte[] bytes, PutObjectRequest.Builder condition) throws IOException {
        PutObjectRequest request = access.encrypted(condition.bucket(bucket).key(key).contentType("application/json")).build();
        try {
            client.putObject(request, RequestBody.fromBytes(bytes));
            return true;
        } catch (S3Exception e) {
            // 412: the condition does not hold; 409: a concurrent conditional write won; 404: If-Match on a deleted object
            if (e.statusCode() == 412 || e.statusCode() == 409 || e.statusCode() == 404) {
                LOG.debug("S3 refused the conditional write of s3://{}/{} ({} {}, after {} attempt(s))", bucket, key, e.statusCode(),
                        e.awsErrorDetails() == null ? "" : e.awsErrorDetails().errorCode(), e.numAttempts());
                // a retried write is refused by its own first attempt when that one was carried out and its answer lost
                return e.numAttempts() > 1 && holds(bytes);
            }
            throw failure("write", e);
        } catch (SdkClientException e) {
            // No answer: S3Proxy answers a refused precondition before it reads the body and closes the
            // connection, and the JDK's HTTP client then reports only that it could not send the body ("Error
            // writing request body to server"); a lost answer looks the same.
            LOG.debug("No answer to the conditional write of s3://{}/{} ({})", bucket, key, e.getMessage());
            return holds(bytes);
        }
    }

    /**
     * Whether the object holds {@code bytes} (they name this run and its renewal time): what settles a conditional
     * write whose answer is unknown, since no other run writes the same bytes.
     */
    private boolean holds(byte[] bytes) throws IOException {
        Optional<Versioned> now = read();
        return now.isPresent() && Arrays.equals(now.get().bytes(), bytes);
    }

    @Override
    public void delete() throws IOException {
        try {
            client.deleteObject(DeleteObjectRequest.builder().bucket(bucket).key(key).build());
        } catch (S3Exception e) {
            throw failure("delete", e);
        }
    }

    private IOException failure(String what, S3Exception e) {
        return new IOException("Cannot " + what + " the archive's lease s3://" + bucket + "/" + key + " (" + access + "): "
                + e.getMessage(), e);
    }

    @Override
    public void close() {
        client.close();
    }
}
