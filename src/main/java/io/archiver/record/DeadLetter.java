package io.archiver.record;

/**
 * A record {@code errors.policy} rejected, with the reason. Under {@code dead-letter} the dead-letter files hold the record as
 * Kafka delivered it (its envelope, payloads as base64) and {@link EnvelopeFields#DEAD_LETTER_REASON}, the problem
 * the validator found (where in the record and what, never payload bytes); under {@code skip} the skip log holds its
 * position and reason only ({@link #skipped}). A record, so that it travels the
 * archive's own file sink; equal to a record with the same envelope whatever its reason.
 */
public class DeadLetter extends ArchiveRecord {

    /**
     * How the reason of a record rejected because Kafka truncated its log begins: a record Kafka holds at an offset
     * whose archived record it no longer holds (the audit reports the archived one as truncated).
     */
    public static final String KAFKA_TRUNCATED = "Kafka truncated its log";

    private String reason;

    /** For Flink's POJO serializer. */
    public DeadLetter() {}

    public DeadLetter(ArchiveRecord record, String reason) {
        super(record.getTopic(), record.getPartition(), record.getOffset(), record.getTimestamp(), record.getTimestampType(),
                record.getKey(), record.getValue(), record.getHeaderKeys(), record.getHeaderValues());
        this.reason = reason;
    }

    /**
     * The skip log's entry for a record {@code errors.policy: skip} rejected: its topic, partition, offset, timestamp and
     * reason, never its key, value or headers.
     */
    public static DeadLetter skipped(ArchiveRecord record, String reason) {
        ArchiveRecord position = new ArchiveRecord(record.getTopic(), record.getPartition(), record.getOffset(), record.getTimestamp(),
                record.getTimestampType(), null, null, new String[0], new byte[0][]);
        return new DeadLetter(position, reason);
    }

    public String getReason() {
        return reason;
    }

    public void setReason(String reason) {
        this.reason = reason;
    }
}
