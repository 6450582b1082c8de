package io.archiver.bench;

import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.blobstore.ForwardingBlobStore;
import org.gaul.s3proxy.blobstore.domain.MultipartUpload;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.DeleteObjectRequest;
import software.amazon.awssdk.services.s3.model.DeleteObjectResponse;
import software.amazon.awssdk.services.s3.model.DeleteObjectsRequest;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

import java.io.InputStream;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the S3 requests the server answers, by kind, for benchmarks that report request counts. With
 * {@code -Dbench.s3.latency-ms=N} every request is answered N ms later: the round trip to a remote S3
 * service, which the embedded server on the same machine does not have and which decides how long work done
 * one request after another takes.
 */
final class RequestCountingBlobStore extends ForwardingBlobStore {

    final AtomicLong gets = new AtomicLong();
    final AtomicLong heads = new AtomicLong();
    final AtomicLong lists = new AtomicLong();
    final AtomicLong puts = new AtomicLong();
    /** Starting, uploading a part of and completing multipart uploads. */
    final AtomicLong multipart = new AtomicLong();
    /** Bytes of objects the server read out for GET requests (what it sent, or began to send before the client closed). */
    final AtomicLong getBytes = new AtomicLong();
    /** Single and multi-object deletes, one request each. */
    final AtomicLong deletes = new AtomicLong();

    private final long latencyMillis;

    RequestCountingBlobStore(BlobStore delegate) {
        super(delegate);
        this.latencyMillis = latencyMillis();
    }

    /** The simulated round trip of every request, ms ({@code bench.s3.latency-ms}, default 0). */
    static long latencyMillis() {
        return Long.getLong("bench.s3.latency-ms", 0);
    }

    /** Counts a request of {@code kind} and holds it for the latency (the simulated round trip). */
    private void answer(AtomicLong kind) {
        kind.incrementAndGet();
        if (latencyMillis > 0) {
            try {
                Thread.sleep(latencyMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    long total() {
        return gets.get() + heads.get() + lists.get() + puts.get() + multipart.get() + deletes.get();
    }

    @Override
    public ResponseInputStream<GetObjectResponse> getBlob(GetObjectRequest request) {
        answer(gets);
        ResponseInputStream<GetObjectResponse> blob = super.getBlob(request);
        if (blob == null) {
            return null;
        }
        return new ResponseInputStream<>(blob.response(), new java.io.FilterInputStream(blob) {
            @Override
            public int read() throws java.io.IOException {
                int b = super.read();
                if (b >= 0) {
                    getBytes.incrementAndGet();
                }
                return b;
            }

            @Override
            public int read(byte[] buffer, int off, int len) throws java.io.IOException {
                int n = super.read(buffer, off, len);
                if (n > 0) {
                    getBytes.addAndGet(n);
                }
                return n;
            }
        });
    }

    @Override
    public HeadObjectResponse blobMetadata(HeadObjectRequest request) {
        answer(heads);
        return super.blobMetadata(request);
    }

    @Override
    public ListObjectsV2Response list(ListObjectsV2Request request) {
        answer(lists);
        return super.list(request);
    }

    @Override
    public PutObjectResponse putBlob(PutObjectRequest request, InputStream in) {
        answer(puts);
        return super.putBlob(request, in);
    }

    @Override
    public MultipartUpload initiateMultipartUpload(CreateMultipartUploadRequest request) {
        answer(multipart);
        return super.initiateMultipartUpload(request);
    }

    @Override
    public UploadPartResponse uploadMultipartPart(MultipartUpload upload, UploadPartRequest request, InputStream in) {
        answer(multipart);
        return super.uploadMultipartPart(upload, request, in);
    }

    @Override
    public CompleteMultipartUploadResponse completeMultipartUpload(
            MultipartUpload upload, CompleteMultipartUploadRequest request) {
        answer(multipart);
        return super.completeMultipartUpload(upload, request);
    }

    @Override
    public DeleteObjectResponse removeBlob(DeleteObjectRequest request) {
        answer(deletes);
        return super.removeBlob(request);
    }

    /** One request, whatever the number of keys (not counted again per key). */
    @Override
    public DeleteObjectsResponse removeBlobs(DeleteObjectsRequest request) {
        answer(deletes);
        return delegate().removeBlobs(request);
    }
}
