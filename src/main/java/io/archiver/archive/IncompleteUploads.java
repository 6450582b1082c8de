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
    final class Upload {
        private final String bucket;
        private final String key;
        private final String uploadId;
        private final Instant initiated;

        public Upload(String bucket, String key, String uploadId, Instant initiated) {
            this.bucket = bucket;
            this.key = key;
            this.uploadId = uploadId;
            this.initiated = initiated;
        }

        public String bucket() {
            return bucket;
        }

        public String key() {
            return key;
        }

        public String uploadId() {
            return uploadId;
        }

        /** When the upload was started, or null when the server does not say. */
        public Instant initiated() {
            return initiated;
        }

        @Override
        public String toString() {
            return "s3://" + bucket + "/" + key + " (upload " + uploadId + ", started " + initiated + ")";
        }
    }
}
