package io.archiver.bench;

import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.blobstore.ForwardingBlobStore;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;

import java.io.InputStream;
import java.util.concurrent.atomic.AtomicLong;

/** Counts the S3 requests the server answers, by kind, for benchmarks that report request counts. */
final class RequestCountingBlobStore extends ForwardingBlobStore {

    final AtomicLong gets = new AtomicLong();
    final AtomicLong heads = new AtomicLong();
    final AtomicLong lists = new AtomicLong();
    final AtomicLong puts = new AtomicLong();

    RequestCountingBlobStore(BlobStore delegate) {
        super(delegate);
    }

    long total() {
        return gets.get() + heads.get() + lists.get() + puts.get();
    }

    @Override
    public ResponseInputStream<GetObjectResponse> getBlob(GetObjectRequest request) {
        gets.incrementAndGet();
        return super.getBlob(request);
    }

    @Override
    public HeadObjectResponse blobMetadata(HeadObjectRequest request) {
        heads.incrementAndGet();
        return super.blobMetadata(request);
    }

    @Override
    public ListObjectsV2Response list(ListObjectsV2Request request) {
        lists.incrementAndGet();
        return super.list(request);
    }

    @Override
    public PutObjectResponse putBlob(PutObjectRequest request, InputStream in) {
        puts.incrementAndGet();
        return super.putBlob(request, in);
    }
}
