package io.archiver.audit;

/**
 * What Kafka says about one partition at audit time.
 *
 * @param logStart first offset still in the log (earlier ones were deleted by retention)
 * @param lastStable the last stable offset: below it every transaction is decided, and a read_committed reader reads
 *     up to it; equal to the log end when no transaction is open
 * @param logEnd offset the next produced record will get
 * @param groupOffset the archiver group's committed offset, or -1 when it has none
 */
public record KafkaPartitionState(long logStart, long lastStable, long logEnd, long groupOffset) {}
