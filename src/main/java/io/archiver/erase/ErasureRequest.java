package io.archiver.erase;

import io.archiver.record.ArchiveRecord;

import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What an erasure takes out of the archive: the records whose key is one of the keys (the key's bytes as Kafka holds
 * them), of the topics named (every topic when none is), and, with a time, only those whose timestamp lies before it.
 */
public final class ErasureRequest {

    private final List<byte[]> keys;
    private final Set<ByteBuffer> keySet;
    private final Set<String> topics;
    private final Instant before;

    /** {@code topics} empty: every topic; {@code before} null: whatever the timestamp. */
    public ErasureRequest(List<byte[]> keys, Set<String> topics, Instant before) {
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("an erasure needs at least one key");
        }
        this.keys = keys.stream().map(byte[]::clone).toList();
        this.keySet = this.keys.stream().map(ByteBuffer::wrap).collect(Collectors.toSet());
        this.topics = Set.copyOf(topics);
        this.before = before;
    }

    public List<byte[]> keys() {
        return keys.stream().map(byte[]::clone).toList();
    }

    public Set<String> topics() {
        return topics;
    }

    /** The time records must be older than to be erased; null for any. */
    public Instant before() {
        return before;
    }

    /** {@link #before()} in epoch milliseconds; {@link Long#MAX_VALUE} for any time. */
    public long beforeMillis() {
        return before == null ? Long.MAX_VALUE : before.toEpochMilli();
    }

    /** Whether {@code topic} is one the request covers. */
    public boolean covers(String topic) {
        return topics.isEmpty() || topics.contains(topic);
    }

    /** Whether {@code record} is one to erase. */
    public boolean selects(ArchiveRecord record) {
        return record.getKey() != null && covers(record.getTopic())
                && record.getTimestamp() < beforeMillis()
                && keySet.contains(ByteBuffer.wrap(record.getKey()));
    }
}
