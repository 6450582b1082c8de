package io.archiver.erase;

import io.archiver.record.ArchiveRecord;

import java.io.Serializable;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What an erasure takes out of the archive: the records whose key is one of the keys (the key's bytes as Kafka holds
 * them), or whose typed column (a field of a decoded payload, {@code value_decoded.customer_id}) holds one of the values
 * asked for it, of the topics named (every topic when none is), and, with a time, only those whose timestamp lies before
 * it.
 */
public final class ErasureRequest implements Serializable {

    private static final long serialVersionUID = 1L;

    private final List<byte[]> keys;
    private final transient Set<ByteBuffer> keySet;
    private final Map<String, Set<String>> where;
    private final Set<String> topics;
    private final Instant before;

    /** {@code topics} empty: every topic; {@code before} null: whatever the timestamp. */
    public ErasureRequest(List<byte[]> keys, Set<String> topics, Instant before) {
        this(keys, Map.of(), topics, before);
    }

    /**
     * {@code where}: typed column (dot path) to the values, as text, whose records go besides those of {@code keys}.
     *
     * @throws IllegalArgumentException without a key or value, or for a column not of a decoded payload
     */
    public ErasureRequest(List<byte[]> keys, Map<String, Set<String>> where, Set<String> topics, Instant before) {
        if (keys.isEmpty() && where.values().stream().allMatch(Set::isEmpty)) {
            throw new IllegalArgumentException("an erasure needs at least one key or value");
        }
        where.keySet().forEach(ErasureRequest::checkColumn);
        this.keys = keys.stream().map(byte[]::clone).toList();
        this.keySet = this.keys.stream().map(ByteBuffer::wrap).collect(Collectors.toSet());
        Map<String, Set<String>> copy = new LinkedHashMap<>();
        where.forEach((column, values) -> copy.put(column, Set.copyOf(new LinkedHashSet<>(values))));
        this.where = Map.copyOf(copy);
        this.topics = Set.copyOf(topics);
        this.before = before;
    }

    /** Deserialized: built anew (its set of keys is not serialized). */
    private Object readResolve() {
        return new ErasureRequest(keys, where, topics, before);
    }

    private static void checkColumn(String column) {
        String[] path = column.split("\\.", -1);
        boolean typed = path.length >= 2 && (path[0].equals("key_decoded") || path[0].equals("value_decoded"))
                && java.util.Arrays.stream(path).noneMatch(String::isEmpty);
        if (!typed) {
            throw new IllegalArgumentException("'" + column + "' is not a typed column: give a field of a decoded key or value by its "
                    + "path, e.g. value_decoded.customer_id (record.key.format / record.value.format avro, json-schema, protobuf or schema-registry)");
        }
    }

    public List<byte[]> keys() {
        return keys.stream().map(byte[]::clone).toList();
    }

    /** Typed column (dot path) to the values, as text, whose records go. */
    public Map<String, Set<String>> where() {
        return where;
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

    /** Whether {@code record}'s key is one to erase (in a topic and time the request covers). */
    public boolean selects(ArchiveRecord record) {
        return record.getKey() != null && covers(record.getTopic())
                && record.getTimestamp() < beforeMillis()
                && keySet.contains(ByteBuffer.wrap(record.getKey()));
    }
}
