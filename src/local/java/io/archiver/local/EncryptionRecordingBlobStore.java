package io.archiver.local;

import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.blobstore.ForwardingBlobStore;
import org.gaul.s3proxy.blobstore.domain.MultipartUpload;
import software.amazon.awssdk.services.s3.model.CopyObjectRequest;
import software.amazon.awssdk.services.s3.model.CopyObjectResponse;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;

import java.io.InputStream;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The S3 server's storage, recording the server-side encryption of every request that creates an object (PUT,
 * multipart upload start, copy) as S3Proxy parsed it from the request's headers: what reached the server, not
 * what the client was configured to send. It accepts the headers (a store that cannot encrypt refuses them) and
 * stores objects as they are: it shows what a client sends, it does not encrypt (S3 does).
 */
public final class EncryptionRecordingBlobStore extends ForwardingBlobStore {

    /** One object-creating request: its kind, key, {@code x-amz-server-side-encryption} and KMS key id headers. */
    public record Write(String kind, String key, String encryption, String kmsKeyId) {}

    /** Objects S3Proxy writes for itself (its multipart upload records), not asked for by a client. */
    private static final String SERVER_OWN = ".s3proxy-";

    private final List<Write> writes = new CopyOnWriteArrayList<>();

    public EncryptionRecordingBlobStore(BlobStore delegate) {
        super(delegate);
    }

    /** The object-creating requests so far. */
    public List<Write> writes() {
        return List.copyOf(writes);
    }

    @Override
    public boolean supportsServerSideEncryption() {
        return true;
    }

    @Override
    public PutObjectResponse putBlob(PutObjectRequest request, InputStream in) {
        if (request.key().startsWith(SERVER_OWN)) {
            return super.putBlob(request, in);
        }
        writes.add(new Write("PutObject", request.key(), request.serverSideEncryptionAsString(), request.ssekmsKeyId()));
        return super.putBlob(request, in);
    }

    @Override
    public MultipartUpload initiateMultipartUpload(CreateMultipartUploadRequest request) {
        writes.add(new Write("CreateMultipartUpload", request.key(), request.serverSideEncryptionAsString(), request.ssekmsKeyId()));
        return super.initiateMultipartUpload(request);
    }

    @Override
    public CopyObjectResponse copyBlob(CopyObjectRequest request) {
        writes.add(new Write("CopyObject", request.destinationKey(), request.serverSideEncryptionAsString(), request.ssekmsKeyId()));
        return super.copyBlob(request);
    }
}
