package io.archiver.sink.files;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The statistics of part files finished by one sink subtask and not yet handed out with their committable,
 * in finishing order per bucket. A bucket finishes its part files one after the other and the file writer
 * emits a bucket's pending files in that same order, so the n-th pending file of a bucket is described by the
 * n-th statistics queued for it. Used by the task thread only.
 */
final class FinishedFiles {

    private final Map<String, ArrayDeque<List<FileStats>>> byBucket = new HashMap<>();

    void add(String bucket, List<FileStats> stats) {
        byBucket.computeIfAbsent(bucket, b -> new ArrayDeque<>()).addLast(stats);
    }

    /** The statistics (per partition) of the oldest finished file of {@code bucket} not handed out yet. */
    List<FileStats> take(String bucket) {
        ArrayDeque<List<FileStats>> queue = byBucket.get(bucket);
        List<FileStats> stats = queue == null ? null : queue.pollFirst();
        if (stats == null) {
            throw new IllegalStateException(
                    "A pending file of bucket '" + bucket + "' has no statistics: the part file was not written by the archiver's writer.");
        }
        if (queue.isEmpty()) {
            byBucket.remove(bucket);
        }
        return stats;
    }
}
