package io.archiver.testutils;

import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.blobstore.ForwardingBlobStore;
import org.gaul.s3proxy.blobstore.domain.MultipartUpload;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.DeleteObjectRequest;
import software.amazon.awssdk.services.s3.model.DeleteObjectResponse;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Sits inside the S3 server and answers requests with errors on command ({@link S3Faults}), so clients meet the
 * faults on the real HTTP path. Faults armed {@linkplain #of for a name} hit only keys with a folder of that name (a
 * test's archive, checkpoints and savepoints are named for its unique topic), so classes running at the same time
 * meet none of each other's; faults armed {@linkplain #everywhere everywhere} hit every request.
 */
public final class FaultInjectingBlobStore extends ForwardingBlobStore {

    private final S3Faults everywhere = new S3Faults();
    private final Map<String, S3Faults> byName = new ConcurrentHashMap<>();

    public FaultInjectingBlobStore(BlobStore delegate) {
        super(delegate);
    }

    /** Faults for every object: for {@code @Isolated} classes only, healed after each of their tests by {@link SharedStack}. */
    public S3Faults everywhere() {
        return everywhere;
    }

    /** Faults for the objects under a folder named {@code name} (one test's unique name). */
    public S3Faults of(String name) {
        return byName.computeIfAbsent(name, n -> new S3Faults());
    }

    /** Heals and forgets the faults of {@code name}. */
    public void forget(String name) {
        S3Faults faults = byName.remove(name);
        if (faults != null) {
            faults.heal();
        }
    }

    /** The faults that apply to {@code key} (or to the objects under a listed prefix): everywhere's and its folders'. */
    private List<S3Faults> faultsFor(String key) {
        List<S3Faults> faults = new ArrayList<>(2);
        faults.add(everywhere);
        if (key != null && !byName.isEmpty()) {
            for (String folder : key.split("/")) {
                S3Faults named = byName.get(folder);
                if (named != null) {
                    faults.add(named);
                }
            }
        }
        return faults;
    }

    private List<S3Faults> duringOutage(String key) {
        List<S3Faults> faults = faultsFor(key);
        faults.forEach(S3Faults::duringOutage);
        return faults;
    }

    private static boolean isTableMetadata(String key) {
        return key != null && key.contains("/_archiver/tables/");
    }

    private static boolean isArchiveFile(String key) {
        return key != null && key.contains("/topic=");
    }

    @Override
    public CompleteMultipartUploadResponse completeMultipartUpload(MultipartUpload mpu, CompleteMultipartUploadRequest request) {
        List<S3Faults> faults = duringOutage(request.key());
        boolean archiveFile = isArchiveFile(request.key());
        faults.forEach(f -> f.beforeComplete(archiveFile));
        CompleteMultipartUploadResponse response = super.completeMultipartUpload(mpu, request);
        faults.forEach(S3Faults::afterComplete);
        return response;
    }

    @Override
    public PutObjectResponse putBlob(PutObjectRequest request, InputStream in) {
        List<S3Faults> faults = duringOutage(request.key());
        if (isTableMetadata(request.key())) {
            faults.forEach(S3Faults::onTableWrite);
        }
        PutObjectResponse response = super.putBlob(request, in);
        faults.forEach(S3Faults::afterPut);
        return response;
    }

    @Override
    public MultipartUpload initiateMultipartUpload(CreateMultipartUploadRequest request) {
        List<S3Faults> faults = duringOutage(request.key());
        if (isArchiveFile(request.key())) {
            faults.forEach(S3Faults::onArchiveUploadStart);
        }
        if (isTableMetadata(request.key())) {
            faults.forEach(S3Faults::onTableWrite);
        }
        return super.initiateMultipartUpload(request);
    }

    @Override
    public UploadPartResponse uploadMultipartPart(MultipartUpload mpu, UploadPartRequest request, InputStream in) {
        List<S3Faults> faults = duringOutage(request.key());
        if (isArchiveFile(request.key())) {
            faults.forEach(S3Faults::onArchivePartUpload);
        }
        return super.uploadMultipartPart(mpu, request, in);
    }

    @Override
    public ResponseInputStream<GetObjectResponse> getBlob(GetObjectRequest request) {
        duringOutage(request.key());
        return super.getBlob(request);
    }

    @Override
    public HeadObjectResponse blobMetadata(HeadObjectRequest request) {
        duringOutage(request.key());
        return super.blobMetadata(request);
    }

    @Override
    public ListObjectsV2Response list(ListObjectsV2Request request) {
        duringOutage(request.prefix());
        return super.list(request);
    }

    @Override
    public DeleteObjectResponse removeBlob(DeleteObjectRequest request) {
        duringOutage(request.key());
        return super.removeBlob(request);
    }
}
