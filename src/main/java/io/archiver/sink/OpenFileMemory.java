package io.archiver.sink;

import java.io.Serializable;
import java.util.HashMap;
import java.util.Map;

/**
 * The heap that the open part files of one sink subtask buffer (Parquet pages and row groups not yet written
 * to the output stream), per bucket, against a budget ({@code sink.parquet.buffer-memory}). Over budget, a file
 * buffering at least its share (the total divided by the open files) is to be closed early by the rolling
 * policy: closing writes its buffers out, so memory stays bounded by the budget instead of growing with the
 * number of partitions, time folders and the checkpoint interval. The writer factory, the rolling policy and
 * the sink writer share one instance per subtask (the sink is deserialized as one object graph); used by the
 * task thread only.
 */
final class OpenFileMemory implements Serializable {

    private static final long serialVersionUID = 1L;

    private final long budgetBytes;
    private transient Map<String, Long> buffered;
    private transient long total;
    private transient long closedEarly;

    /** {@code budgetBytes} 0: no bound, buffers are only tracked. */
    OpenFileMemory(long budgetBytes) {
        this.budgetBytes = budgetBytes;
    }

    private Map<String, Long> buffered() {
        if (buffered == null) {
            buffered = new HashMap<>();
        }
        return buffered;
    }

    /** The open file of {@code bucket} now buffers {@code bytes}. */
    void update(String bucket, long bytes) {
        Long before = buffered().put(bucket, bytes);
        total += bytes - (before == null ? 0 : before);
    }

    /** The open file of {@code bucket} was closed: its buffers are written out. */
    void release(String bucket) {
        Long before = buffered().remove(bucket);
        if (before != null) {
            total -= before;
        }
    }

    /**
     * Whether the open file of {@code bucket} should be closed now to keep within the budget: the open files
     * buffer more than the budget and this one holds at least its share. Counts the files it tells to close.
     */
    boolean shouldClose(String bucket) {
        if (budgetBytes <= 0 || total <= budgetBytes) {
            return false;
        }
        Long bytes = buffered().get(bucket);
        if (bytes == null || bytes == 0 || bytes * buffered.size() < total) {
            return false;
        }
        closedEarly++;
        return true;
    }

    /** Bytes the open files buffer together. */
    long bufferedBytes() {
        return total;
    }

    /** Files closed early to stay within the budget, since the subtask started. */
    long filesClosedEarly() {
        return closedEarly;
    }
}
