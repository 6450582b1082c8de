package io.archiver.sink.files;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.Map;

/**
 * The heap that the open part files of one sink subtask hold (a Parquet file's writer, plus its pages and row
 * group not yet written to the output stream), per bucket, against a budget ({@code sink.parquet.buffer-memory}).
 * Over budget, a file holding at least its share (the total divided by the open files) and at least {@code
 * minimumToClose} is to be closed early by the rolling policy: closing writes its buffers out, so memory stays
 * bounded by the budget instead of growing with the checkpoint interval. Files too small to be worth closing
 * (their heap is the writer itself, which the next record would open again) are not closed: when they alone
 * exceed the budget, that is logged once with the fixes. One per sink subtask ({@link SubtaskPartFiles}), used
 * by its task thread only.
 */
public final class OpenFileMemory {

    private static final Logger LOG = LoggerFactory.getLogger(OpenFileMemory.class);

    private final long budgetBytes;
    private final long minimumToClose;
    private final Map<String, Long> buffered = new HashMap<>();
    private long total;
    private long closedEarly;
    private boolean warned;

    /** {@code budgetBytes} 0: no bound, buffers are only tracked. */
    OpenFileMemory(long budgetBytes, long minimumToClose) {
        this.budgetBytes = budgetBytes;
        this.minimumToClose = minimumToClose;
    }

    /** The open file of {@code bucket} now buffers {@code bytes}. */
    void update(String bucket, long bytes) {
        Long before = buffered.put(bucket, bytes);
        total += bytes - (before == null ? 0 : before);
    }

    /** The open file of {@code bucket} was closed: its buffers are written out. */
    void release(String bucket) {
        Long before = buffered.remove(bucket);
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
        Long bytes = buffered.get(bucket);
        if (bytes == null || bytes * buffered.size() < total) {
            return false;
        }
        if (bytes < minimumToClose) {
            warnOnce();
            return false;
        }
        closedEarly++;
        return true;
    }

    private void warnOnce() {
        if (!warned) {
            warned = true;
            LOG.warn("The {} open Parquet files of this sink subtask hold {} MB of heap, more than sink.parquet.buffer-memory ({} MB), "
                            + "though none holds enough data to be worth closing early: each open file costs about 100 KB before its data. "
                            + "Raise sink.parquet.buffer-memory and the TaskManager heap, raise the parallelism, or use a coarser "
                            + "sink.time-partitioning, so that fewer files are open per subtask.",
                    buffered.size(), total >> 20, budgetBytes >> 20);
        }
    }

    /** Bytes the open files buffer together. */
    public long bufferedBytes() {
        return total;
    }

    /** Files closed early to stay within the budget, since the subtask started. */
    public long filesClosedEarly() {
        return closedEarly;
    }
}
