package io.archiver.archive;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Lists multipart uploads under an archive root that were started but neither completed nor aborted. */
public interface IncompleteUploads extends AutoCloseable {

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

    /** Lets go of the connection to the store. */
    @Override
    default void close() {}

    /**
     * {@code uploads} sorted as the audit, {@code cleanup} and the job's sweep treat them: those of commits cut short
     * (their keys are in {@code cutShortKeys}, the files position records list: a start without state completes them,
     * so they are kept however old), orphans (started before {@code orphanedBefore}), and recent ones (most likely a
     * running job's files).
     */
    static Sorted sort(List<Upload> uploads, Set<String> cutShortKeys, Instant orphanedBefore) {
        List<Upload> cutShort = new ArrayList<>();
        List<Upload> orphaned = new ArrayList<>();
        List<Upload> recent = new ArrayList<>();
        for (Upload upload : uploads) {
            if (cutShortKeys.contains(upload.key())) {
                cutShort.add(upload);
            } else if (upload.startedBefore(orphanedBefore)) {
                orphaned.add(upload);
            } else {
                recent.add(upload);
            }
        }
        return new Sorted(cutShort, orphaned, recent);
    }

    /** Incomplete uploads sorted by {@link #sort}. */
    record Sorted(List<Upload> cutShort, List<Upload> orphaned, List<Upload> recent) {}

    /**
     * One incomplete upload.
     *
     * @param initiated when the upload was started, or null when the server does not say
     */
    record Upload(String bucket, String key, String uploadId, Instant initiated) {

        /** Whether the upload started before {@code instant} (or the server did not say when: as old as can be). */
        public boolean startedBefore(Instant instant) {
            return initiated == null || initiated.isBefore(instant);
        }

        @Override
        public String toString() {
            return "s3://" + bucket + "/" + key + " (upload " + uploadId + ", started " + initiated + ")";
        }
    }
}
