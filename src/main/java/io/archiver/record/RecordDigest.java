package io.archiver.record;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A record's content in two longs, so that a deep audit compares what each archived record holds with Kafka's
 * record at its offset without keeping a payload: the first word packs a 21-bit hash of the key, one of the
 * value, a 20-bit hash of the headers (keys, values, order) and the timestamp type; the second is the timestamp
 * itself. Two records whose digests differ differ in the fields {@link #differences} names; a difference in a
 * field goes unseen with a chance of one in 2^20 or less. A null payload and an empty one differ.
 *
 * <p>Kafka's side is computed from the fetched buffers ({@link ByteBuffer} views, nothing copied); the archive's
 * side from the record as read back (payloads rebuilt from typed columns included), by the same code.
 */
public final class RecordDigest {

    public static final int KEY = 1;
    public static final int VALUE = 2;
    public static final int HEADERS = 4;
    public static final int TIMESTAMP = 8;
    public static final int TIMESTAMP_TYPE = 16;

    private static final String[] FIELD_NAMES = {"key", "value", "headers", "timestamp", "timestamp type"};
    private static final long KEY_MASK = ((1L << 21) - 1) << 43;
    private static final long VALUE_MASK = ((1L << 21) - 1) << 22;
    private static final long HEADERS_MASK = ((1L << 20) - 1) << 2;
    private static final long TYPE_MASK = 3;
    private static final long PRIME = 0x9E3779B97F4A7C15L;

    private RecordDigest() {}

    /** The first word of an archived record's digest (the second is its timestamp). */
    public static long of(ArchiveRecord r) {
        long headers = HEADERS_SEED;
        String[] keys = r.getHeaderKeys();
        byte[][] values = r.getHeaderValues();
        for (int i = 0; i < keys.length; i++) {
            headers = header(headers, keys[i], values[i] == null ? null : ByteBuffer.wrap(values[i]));
        }
        return pack(hash(r.getKey() == null ? null : ByteBuffer.wrap(r.getKey())),
                hash(r.getValue() == null ? null : ByteBuffer.wrap(r.getValue())), headers, r.getTimestampType());
    }

    /** The first word of a Kafka record's digest (the second is its timestamp); its key and value must be {@link ByteBuffer}s or null. */
    public static long of(ConsumerRecord<?, ?> record) {
        long headers = HEADERS_SEED;
        for (Header h : record.headers()) {
            headers = header(headers, h.key(), h.value() == null ? null : ByteBuffer.wrap(h.value()));
        }
        return pack(hash((ByteBuffer) record.key()), hash((ByteBuffer) record.value()), headers, record.timestampType().name);
    }

    /** The starting value of {@link #header} folds. */
    public static final long HEADERS_SEED = 0x6A09E667F3BCC908L;

    /** Folds the next header into {@code headers} (start from {@link #HEADERS_SEED}). */
    public static long header(long headers, String key, ByteBuffer value) {
        long h = (headers ^ hash(ByteBuffer.wrap(key.getBytes(StandardCharsets.UTF_8)))) * PRIME;
        return (Long.rotateLeft(h, 29) ^ hash(value)) * PRIME;
    }

    /** The first word of a digest from its parts: key and value hashes ({@link #hash}), the headers' fold, the timestamp type's name. */
    public static long pack(long key, long value, long headers, String timestampType) {
        return (key & KEY_MASK) | ((value >>> 21) & VALUE_MASK) | ((fmix(headers) >>> 42) << 2 & HEADERS_MASK) | type(timestampType);
    }

    /** The fields in which two records with these digests differ: a mask of {@link #KEY}, {@link #VALUE}, ... ; 0 when none. */
    public static int differences(long word, long timestamp, long otherWord, long otherTimestamp) {
        long x = word ^ otherWord;
        int fields = 0;
        if ((x & KEY_MASK) != 0) {
            fields |= KEY;
        }
        if ((x & VALUE_MASK) != 0) {
            fields |= VALUE;
        }
        if ((x & HEADERS_MASK) != 0) {
            fields |= HEADERS;
        }
        if (timestamp != otherTimestamp) {
            fields |= TIMESTAMP;
        }
        if ((x & TYPE_MASK) != 0) {
            fields |= TIMESTAMP_TYPE;
        }
        return fields;
    }

    /** The names of the fields of a {@link #differences} mask, in field order. */
    public static String names(int fields) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < FIELD_NAMES.length; i++) {
            if ((fields & (1 << i)) != 0) {
                s.append(s.length() == 0 ? "" : ", ").append(FIELD_NAMES[i]);
            }
        }
        return s.toString();
    }

    /** The name of the field of one {@link #differences} bit. */
    public static String name(int field) {
        return FIELD_NAMES[Integer.numberOfTrailingZeros(field)];
    }

    /** How many fields a digest names. */
    public static int fieldCount() {
        return FIELD_NAMES.length;
    }

    /** A 64-bit hash of the buffer's remaining bytes (its position untouched); null hashes apart from every array, the empty one included. */
    public static long hash(ByteBuffer b) {
        if (b == null) {
            return 0x5BE0CD19137E2179L;
        }
        int from = b.position();
        int end = b.limit();
        long h = PRIME ^ (end - from);
        int i = from;
        for (; i + 8 <= end; i += 8) {
            h = Long.rotateLeft(h ^ b.getLong(i) * 0xC2B2AE3D27D4EB4FL, 31) * PRIME;
        }
        long tail = 0;
        for (; i < end; i++) {
            tail = tail << 8 | (b.get(i) & 0xFF);
        }
        return fmix(h ^ tail * 0x165667B19E3779F9L);
    }

    private static long type(String timestampType) {
        if ("CreateTime".equals(timestampType)) {
            return 1;
        }
        return "LogAppendTime".equals(timestampType) ? 2 : 0;
    }

    private static long fmix(long h) {
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        return h ^ h >>> 33;
    }
}
