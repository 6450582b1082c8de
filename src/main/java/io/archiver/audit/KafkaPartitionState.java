package io.archiver.audit;

/** What Kafka says about one partition at audit time. */
public final class KafkaPartitionState {

    private final long logStart;
    private final long lastStable;
    private final long logEnd;
    private final long groupOffset;

    KafkaPartitionState(long logStart, long lastStable, long logEnd, long groupOffset) {
        this.logStart = logStart;
        this.lastStable = lastStable;
        this.logEnd = logEnd;
        this.groupOffset = groupOffset;
    }

    /** First offset still in the log (earlier ones were deleted by retention). */
    public long logStart() {
        return logStart;
    }

    /**
     * The last stable offset: below it every transaction is decided, and a read_committed reader reads up to
     * it. Equal to the log end when no transaction is open.
     */
    public long lastStable() {
        return lastStable;
    }

    /** Offset the next produced record will get. */
    public long logEnd() {
        return logEnd;
    }

    /** The archiver group's committed offset, or -1 when it has none. */
    public long groupOffset() {
        return groupOffset;
    }
}
