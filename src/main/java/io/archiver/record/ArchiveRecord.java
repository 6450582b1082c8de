package io.archiver.record;

import java.util.Arrays;
import java.util.Objects;

/**
 * The envelope archived for every Kafka record: where it came from (topic, partition, offset), when
 * (timestamp and its type) and what it held (key, value, headers). Key, value and header values are the
 * raw bytes Kafka delivered; {@code null} is kept (tombstones, null keys, null header values).
 *
 * <p>A Flink POJO (public no-argument constructor, getters and setters) so that Flink serializes it with
 * its {@code PojoSerializer} and never falls back to Kryo. Header keys and values are parallel arrays of
 * equal length, in the order Kafka delivered them (duplicate header keys are legal and kept).
 */
public class ArchiveRecord {

    private String topic;
    private int partition;
    private long offset;
    private long timestamp;
    private String timestampType;
    private byte[] key;
    private byte[] value;
    private String[] headerKeys;
    private byte[][] headerValues;
    private int leaderEpoch = -1;

    public ArchiveRecord() {
        this.headerKeys = new String[0];
        this.headerValues = new byte[0][];
    }

    public ArchiveRecord(
            String topic,
            int partition,
            long offset,
            long timestamp,
            String timestampType,
            byte[] key,
            byte[] value,
            String[] headerKeys,
            byte[][] headerValues) {
        if (headerKeys.length != headerValues.length) {
            throw new IllegalArgumentException("header keys and values differ in length");
        }
        this.topic = topic;
        this.partition = partition;
        this.offset = offset;
        this.timestamp = timestamp;
        this.timestampType = timestampType;
        this.key = key;
        this.value = value;
        this.headerKeys = headerKeys;
        this.headerValues = headerValues;
    }

    public String getTopic() {
        return topic;
    }

    public void setTopic(String topic) {
        this.topic = topic;
    }

    public int getPartition() {
        return partition;
    }

    public void setPartition(int partition) {
        this.partition = partition;
    }

    public long getOffset() {
        return offset;
    }

    public void setOffset(long offset) {
        this.offset = offset;
    }

    public long getTimestamp() {
        return timestamp;
    }

    public void setTimestamp(long timestamp) {
        this.timestamp = timestamp;
    }

    /** Kafka's timestamp type name: {@code CreateTime}, {@code LogAppendTime} or {@code NoTimestampType}. */
    public String getTimestampType() {
        return timestampType;
    }

    public void setTimestampType(String timestampType) {
        this.timestampType = timestampType;
    }

    public byte[] getKey() {
        return key;
    }

    public void setKey(byte[] key) {
        this.key = key;
    }

    public byte[] getValue() {
        return value;
    }

    public void setValue(byte[] value) {
        this.value = value;
    }

    public String[] getHeaderKeys() {
        return headerKeys;
    }

    public void setHeaderKeys(String[] headerKeys) {
        this.headerKeys = headerKeys;
    }

    public byte[][] getHeaderValues() {
        return headerValues;
    }

    public void setHeaderValues(byte[][] headerValues) {
        this.headerValues = headerValues;
    }

    /**
     * The leader epoch of the partition when Kafka wrote the record, -1 when not known (records read back from the
     * archive, which does not keep it): with the offset it tells a record read again after Kafka truncated its log from
     * the one archived before. Not part of equality.
     */
    public int getLeaderEpoch() {
        return leaderEpoch;
    }

    public void setLeaderEpoch(int leaderEpoch) {
        this.leaderEpoch = leaderEpoch;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof ArchiveRecord)) {
            return false;
        }
        ArchiveRecord that = (ArchiveRecord) o;
        return partition == that.partition
                && offset == that.offset
                && timestamp == that.timestamp
                && Objects.equals(topic, that.topic)
                && Objects.equals(timestampType, that.timestampType)
                && Arrays.equals(key, that.key)
                && Arrays.equals(value, that.value)
                && Arrays.equals(headerKeys, that.headerKeys)
                && Arrays.deepEquals(headerValues, that.headerValues);
    }

    @Override
    public int hashCode() {
        return Objects.hash(topic, partition, offset);
    }

    @Override
    public String toString() {
        return topic + "-" + partition + "@" + offset;
    }
}
