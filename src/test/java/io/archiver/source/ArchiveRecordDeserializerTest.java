package io.archiver.source;

import io.archiver.record.ArchiveRecord;

import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** Headers come out as Kafka gives them. */
class ArchiveRecordDeserializerTest {

    @Test
    void headersAreKeptInOrderWithKafkasKeysAndValuesNullsAndDuplicatesIncluded() {
        byte[] malformed = {'k', (byte) 0xC3, '(', (byte) 0xFF};
        List<List<Wire>> records = List.of(
                List.of(h("trace", "a"), h("tenant", "b")),
                List.of(h("trace", "c"), h("tenant", "d")),
                List.of(h("tenant", "e"), h("trace", null)),
                List.of(h("caf\u00e9", "f"), new Wire(malformed, bytes("g")), h("trace", "h"), h("x", "i"), h("y", "j"), h("trace", "k")),
                List.of(),
                List.of(h("trace", "l")));
        for (boolean direct : new boolean[] {false, true}) {
            ArchiveRecordDeserializer deserializer = new ArchiveRecordDeserializer();
            long offset = 0;
            for (List<Wire> headers : records) {
                ArchiveRecord archived = deserialize(deserializer, offset++, fromTheWire(headers, direct));
                RecordHeaders expected = fromTheWire(headers, false);
                assertThat(archived.getHeaderKeys()).containsExactly(keysOf(expected));
                assertThat(archived.getHeaderValues()).isDeepEqualTo(valuesOf(expected));
            }
        }
    }

    /** A header's key and value as a producer sent them. */
    private static Wire h(String key, String value) {
        return new Wire(bytes(key), value == null ? null : bytes(value));
    }

    private record Wire(byte[] key, byte[] value) {}

    /** Headers as a fetch makes them, their keys slices of the fetched bytes (on the heap or, {@code direct}, off it). */
    private static RecordHeaders fromTheWire(List<Wire> headers, boolean direct) {
        RecordHeaders result = new RecordHeaders();
        for (Wire h : headers) {
            byte[] key = h.key();
            byte[] value = h.value();
            ByteBuffer fetched = direct ? ByteBuffer.allocateDirect(key.length + 3) : ByteBuffer.allocate(key.length + 3);
            fetched.put(3, key);
            result.add(new RecordHeader(fetched.slice(3, key.length), value == null ? null : ByteBuffer.wrap(value)));
        }
        return result;
    }

    private static String[] keysOf(RecordHeaders headers) {
        List<String> keys = new ArrayList<>();
        headers.forEach(h -> keys.add(h.key()));
        return keys.toArray(new String[0]);
    }

    private static byte[][] valuesOf(RecordHeaders headers) {
        List<byte[]> values = new ArrayList<>();
        headers.forEach(h -> values.add(h.value()));
        return values.toArray(new byte[0][]);
    }

    private static ArchiveRecord deserialize(ArchiveRecordDeserializer deserializer, long offset, RecordHeaders headers) {
        ConsumerRecord<byte[], byte[]> record = new ConsumerRecord<>("orders", 0, offset, 1L, TimestampType.CREATE_TIME, 1, 1,
                bytes("k"), bytes("v"), headers, Optional.empty());
        List<ArchiveRecord> out = new ArrayList<>();
        deserializer.deserialize(record, new Collector<>() {
            @Override
            public void collect(ArchiveRecord r) {
                out.add(r);
            }

            @Override
            public void close() {}
        });
        assertThat(out).hasSize(1);
        return out.get(0);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
