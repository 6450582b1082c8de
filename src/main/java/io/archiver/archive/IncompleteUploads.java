package io.archiver.archive;

import java.io.IOException;
import java.time.Instant;
import java.util.List;

/** Lists multipart uploads under an archive root that were started but neither completed nor aborted. */
public interface IncompleteUploads {

    /** For filesystems without multipart uploads. */
    IncompleteUploads NONE = new IncompleteUploads() {
        @Override
        public List<Upload> list(String root) {
            return List.of();
        }

        @Override
        public void abort(Upload upload) {
            throw new UnsupportedOperationException("no multipart uploads here");
        }
    };

    /** Incomplete uploads under {@code root}. */
    List<Upload> list(String root) throws IOException;

    /** Aborts an upload: its parts are deleted and it can never be completed. */
    void abort(Upload upload) throws IOException;

    /** One incomplete multipart upload. */
    /**
     * One incomplete upload.
     *
     * @param initiated when the upload was started, or null when the server does not say
     */
    record Upload(String bucket, String key, String uploadId, Instant initiated) {

        @Override
        public String toString() {
            return "s3://" + bucket + "/" + key + " (upload " + uploadId + ", started " + initiated + ")";
        }
    }
}
