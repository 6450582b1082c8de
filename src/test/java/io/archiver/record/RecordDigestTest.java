package io.archiver.record;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** A Kafka record and its archived copy have one digest, and a change of any field shows as that field. */
class RecordDigestTest {

    private static final Random RANDOM = new Random(44);

    @Test
    void kafkasRecordAndItsArchivedCopyDigestAlikeWhateverTheirPayloads() {
        for (int i = 0; i < 2_000; i++) {
            byte[] key = i % 7 == 0 ? null : bytes(RANDOM.nextInt(40));
            byte[] value = i % 11 == 0 ? null : bytes(RANDOM.nextInt(3_000));
            int headerCount = RANDOM.nextInt(4);
            String[] keys = new String[headerCount];
            byte[][] values = new byte[headerCount][];
            for (int h = 0; h < headerCount; h++) {
                keys[h] = "h\u00e9" + RANDOM.nextInt(3);
                values[h] = RANDOM.nextInt(5) == 0 ? null : bytes(RANDOM.nextInt(20));
            }
            long timestamp = RANDOM.nextLong();
            TimestampType type = i % 3 == 0 ? TimestampType.LOG_APPEND_TIME : TimestampType.CREATE_TIME;
            ArchiveRecord archived = new ArchiveRecord("t", 0, i, timestamp, type.name, key, value, keys, values);
            ConsumerRecord<Object, Object> kafka = kafka(key, value, keys, values, timestamp, type);

            assertThat(RecordDigest.differences(RecordDigest.of(archived), timestamp, RecordDigest.of(kafka), timestamp)).isZero();
        }
    }

    @Test
    void aChangedFieldIsNamedAndNoOther() {
        byte[] value = "{\"amount\": 1.50}".getBytes(StandardCharsets.UTF_8);
        ArchiveRecord r = new ArchiveRecord("t", 0, 5, 1_000, "CreateTime", "k".getBytes(StandardCharsets.UTF_8), value,
                new String[] {"trace"}, new byte[][] {{1, 2}});
        long base = RecordDigest.of(r);

        byte[] oneByte = value.clone();
        oneByte[12] ^= 1;
        assertThat(differences(base, withValue(r, oneByte), 1_000)).isEqualTo(RecordDigest.VALUE);
        assertThat(differences(base, withValue(r, new byte[0]), 1_000)).isEqualTo(RecordDigest.VALUE);
        assertThat(differences(base, withValue(r, null), 1_000)).isEqualTo(RecordDigest.VALUE);
        assertThat(differences(base, new ArchiveRecord("t", 0, 5, 1_000, "CreateTime", null, value, r.getHeaderKeys(),
                r.getHeaderValues()), 1_000)).isEqualTo(RecordDigest.KEY);
        assertThat(differences(base, new ArchiveRecord("t", 0, 5, 1_000, "CreateTime", r.getKey(), value, new String[] {"trace"},
                new byte[][] {{1, 3}}), 1_000)).isEqualTo(RecordDigest.HEADERS);
        assertThat(differences(base, new ArchiveRecord("t", 0, 5, 1_000, "CreateTime", r.getKey(), value, new String[0],
                new byte[0][]), 1_000)).isEqualTo(RecordDigest.HEADERS);
        assertThat(differences(base, r, 1_001)).isEqualTo(RecordDigest.TIMESTAMP);
        assertThat(differences(base, new ArchiveRecord("t", 0, 5, 1_000, "LogAppendTime", r.getKey(), value, r.getHeaderKeys(),
                r.getHeaderValues()), 1_000)).isEqualTo(RecordDigest.TIMESTAMP_TYPE);
        assertThat(RecordDigest.names(RecordDigest.VALUE | RecordDigest.TIMESTAMP)).isEqualTo("value, timestamp");
    }

    @Test
    void headersInAnotherOrderDiffer() {
        ArchiveRecord ab = new ArchiveRecord("t", 0, 0, 0, "CreateTime", null, null, new String[] {"a", "b"}, new byte[][] {{1}, {2}});
        ArchiveRecord ba = new ArchiveRecord("t", 0, 0, 0, "CreateTime", null, null, new String[] {"b", "a"}, new byte[][] {{2}, {1}});
        assertThat(RecordDigest.differences(RecordDigest.of(ab), 0, RecordDigest.of(ba), 0)).isEqualTo(RecordDigest.HEADERS);
    }

    private static int differences(long base, ArchiveRecord other, long otherTimestamp) {
        return RecordDigest.differences(base, 1_000, RecordDigest.of(other), otherTimestamp);
    }

    private static ArchiveRecord withValue(ArchiveRecord r, byte[] value) {
        return new ArchiveRecord(r.getTopic(), r.getPartition(), r.getOffset(), r.getTimestamp(), r.getTimestampType(), r.getKey(), value,
                r.getHeaderKeys(), r.getHeaderValues());
    }

    /** As the audit's scanner delivers it: key and value as views into a larger fetched buffer. */
    private static ConsumerRecord<Object, Object> kafka(byte[] key, byte[] value, String[] keys, byte[][] values, long timestamp,
            TimestampType type) {
        RecordHeaders headers = new RecordHeaders();
        for (int h = 0; h < keys.length; h++) {
            headers.add(new RecordHeader(keys[h], values[h]));
        }
        return new ConsumerRecord<>("t", 0, 0, timestamp, type, -1, -1, view(key), view(value), headers, Optional.empty());
    }

    private static ByteBuffer view(byte[] bytes) {
        if (bytes == null) {
            return null;
        }
        ByteBuffer fetched = ByteBuffer.allocate(bytes.length + 13);
        fetched.position(7);
        fetched.put(bytes);
        return fetched.position(7).limit(7 + bytes.length).slice().position(0);
    }

    private static byte[] bytes(int n) {
        byte[] b = new byte[n];
        RANDOM.nextBytes(b);
        return b;
    }
}
