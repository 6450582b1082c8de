package io.archiver.archive;

import io.archiver.fs.S3BucketAccess;

import org.apache.flink.configuration.Configuration;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.AbortMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsRequest;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsResponse;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.S3Exception;

import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Lists incomplete multipart uploads with the S3 API (Flink's filesystem cannot). Configured from the same
 * {@code s3.*} keys as Flink's S3 filesystem: {@code s3.endpoint}, {@code s3.path.style.access},
 * {@code s3.access-key}/{@code s3.secret-key} (else the default AWS credential chain), {@code s3.region}.
 */
public final class S3IncompleteUploads implements IncompleteUploads {

    private final S3Client client;

    private S3IncompleteUploads(S3Client client) {
        this.client = client;
    }

    /** The lister for {@code root}: the S3 API for s3:// roots, none for other filesystems. */
    public static IncompleteUploads forRoot(String root, Configuration s3Settings) {
        URI uri = URI.create(root);
        if (uri.getScheme() != null && uri.getScheme().startsWith("s3")) {
            return fromSettings(s3Settings, uri.getHost());
        }
        return NONE;
    }

    /**
     * The lister for {@code root} with the S3 settings of the file system that serves it (what a job's task has:
     * the cluster's s3.* settings and credentials); none for other file systems.
     */
    public static IncompleteUploads forFileSystem(String root) throws IOException {
        Optional<S3BucketAccess> s3 = S3BucketAccess.ofFileSystem(new org.apache.flink.core.fs.Path(root));
        return s3.<IncompleteUploads>map(access -> new S3IncompleteUploads(access.client())).orElse(NONE);
    }

    public static S3IncompleteUploads fromSettings(Configuration s3) {
        return fromSettings(s3, null);
    }

    /**
     * The lister for {@code bucket} (null: any), whose settings of the S3 file system
     * ({@code s3.bucket.<bucket>.endpoint}, ...) win over the general ones, as they do for the file system.
     */
    public static S3IncompleteUploads fromSettings(Configuration s3, String bucket) {
        return new S3IncompleteUploads(S3BucketAccess.ofFlinkSettings(s3, bucket).client());
    }

    @Override
    public List<Upload> list(String root) throws IOException {
        ArchiveRoot archive = ArchiveRoot.of(root);
        String bucket = archive.bucket();
        String prefix = archive.keyPrefix();
        List<Upload> out = new ArrayList<>();
        try {
            ListMultipartUploadsRequest request = ListMultipartUploadsRequest.builder().bucket(bucket).prefix(prefix).build();
            while (true) {
                ListMultipartUploadsResponse response = client.listMultipartUploads(request);
                for (MultipartUpload upload : response.uploads()) {
                    out.add(new Upload(bucket, upload.key(), upload.uploadId(), upload.initiated()));
                }
                if (!Boolean.TRUE.equals(response.isTruncated())) {
                    return out;
                }
                request = request.toBuilder()
                        .keyMarker(response.nextKeyMarker())
                        .uploadIdMarker(response.nextUploadIdMarker())
                        .build();
            }
        } catch (S3Exception e) {
            throw new IOException("Cannot list multipart uploads under " + root + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void abort(Upload upload) throws IOException {
        try {
            client.abortMultipartUpload(AbortMultipartUploadRequest.builder()
                    .bucket(upload.bucket()).key(upload.key()).uploadId(upload.uploadId()).build());
        } catch (S3Exception e) {
            throw new IOException("Cannot abort " + upload + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        client.close();
    }
}
