package io.archiver.restore.verify;

import io.archiver.restore.plan.RestoreSelection;
import io.archiver.restore.plan.RestorePlan;
import io.archiver.restore.plan.UnitRecords;
import io.archiver.restore.ledger.RestoredRecords;
import io.archiver.restore.ledger.RestoreHistory;
import io.archiver.archive.ArchiveFileReader;
import io.archiver.record.ArchiveRecord;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.TimestampType;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * The verification of a re-partitioned restore. Every target partition is read once from where the restore
 * began; each record names its archived partition and offset in its source header. Per archived partition,
 * what each target partition holds must come in offset order (order per key); merged by offset, the records
 * are joined with the selected archived records, compared by a 64-bit digest of key, value, headers (the source
 * header left out) and timestamp (left out where the broker stamped LogAppendTime). The target side holds 17
 * bytes per record in memory.
 */
final class KeyedRestoreCheck {

    private static final Duration POLL = Duration.ofMillis(200);
    private static final Duration STALL = Duration.ofSeconds(30);

    /** A target partition's records of one archived partition, in the order the target holds them. */
    private static final class Run {
        long[] offsets = new long[64];
        long[] digests = new long[64];
        boolean[] brokerTime = new boolean[64];
        int size;
        long outOfOrder;

        void add(long offset, long digest, boolean logAppendTime) {
            if (size > 0 && offset <= offsets[size - 1]) {
                outOfOrder++;
            }
            if (size == offsets.length) {
                offsets = Arrays.copyOf(offsets, size * 2);
                digests = Arrays.copyOf(digests, size * 2);
                brokerTime = Arrays.copyOf(brokerTime, size * 2);
            }
            offsets[size] = offset;
            digests[size] = digest;
            brokerTime[size] = logAppendTime;
            size++;
        }
    }

    /** Per archived partition ({@code topic-partition}), its records in each target partition. */
    private final Map<String, Map<TopicPartition, Run>> restored = new HashMap<>();
    private final Map<TopicPartition, Long> withoutSource = new HashMap<>();

    /** Reads every target partition from {@code starts} to {@code ends}. */
    void readTargets(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> starts, Map<TopicPartition, Long> ends) {
        List<TopicPartition> active = new ArrayList<>();
        starts.forEach((tp, start) -> {
            if (start < ends.get(tp)) {
                active.add(tp);
            }
        });
        consumer.assign(active);
        active.forEach(tp -> consumer.seek(tp, starts.get(tp)));
        long lastMove = System.nanoTime();
        while (!active.isEmpty()) {
            int polled = 0;
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
                TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                if (r.offset() >= ends.get(tp)) {
                    continue;
                }
                polled++;
                RestoredRecords.Source source = RestoredRecords.sourceOf(r.headers());
                if (source == null) {
                    withoutSource.merge(tp, 1L, Long::sum);
                    continue;
                }
                boolean logAppendTime = r.timestampType() == TimestampType.LOG_APPEND_TIME;
                restored.computeIfAbsent(source.archivedPartition(), k -> new HashMap<>())
                        .computeIfAbsent(tp, k -> new Run()).add(source.offset(), digest(r, !logAppendTime), logAppendTime);
            }
            active.removeIf(tp -> consumer.position(tp) >= ends.get(tp));
            if (polled > 0) {
                lastMove = System.nanoTime();
            } else if (System.nanoTime() - lastMove > STALL.toNanos()) {
                throw new IllegalStateException("Reading the restored topics made no progress for " + STALL.toSeconds() + " s: " + active);
            }
        }
        consumer.assign(List.of());
    }

    /** Records in the targets that name no archived partition: written by someone else. */
    Map<TopicPartition, Long> withoutSource() {
        return withoutSource;
    }

    /**
     * Joins an archived partition's selected records, and those the restore's runs wrote ({@code history}), with
     * what the targets hold of it. Order per target partition is checked when one run wrote them all (runs of other
     * selections add older records after newer ones).
     */
    RestoreVerifier.PartitionCheck compare(TopicPartition archived, String targetTopic, List<RestorePlan.PlannedFile> files,
            RestoreSelection selection, RestoreHistory history, ArchiveFileReader reader) throws IOException {
        Map<TopicPartition, Run> runs = restored.getOrDefault(archived.toString(), Map.of());
        long outOfOrder = history != null && history.runs().size() > 1 ? 0 : runs.values().stream().mapToLong(r -> r.outOfOrder).sum();
        List<Run> ordered = new ArrayList<>(runs.values());
        PriorityQueue<int[]> next = new PriorityQueue<>((a, b) -> Long.compare(offsetOf(ordered, a), offsetOf(ordered, b)));
        for (int i = 0; i < ordered.size(); i++) {
            if (ordered.get(i).size > 0) {
                next.add(new int[] {i, 0});
            }
        }
        long[] n = new long[6]; // archived, matched, differing, missing, extra, broker timestamps
        UnitRecords.readPartition(reader, archived.partition(), files, r -> selection.takes(r) || (history != null && history.written(r)), r -> {
            n[0]++;
            while (!next.isEmpty() && offsetOf(ordered, next.peek()) < r.getOffset()) {
                n[4]++;
                advance(ordered, next);
            }
            if (next.isEmpty() || offsetOf(ordered, next.peek()) > r.getOffset()) {
                n[3]++;
                return;
            }
            int[] at = next.peek();
            Run run = ordered.get(at[0]);
            boolean brokerTime = run.brokerTime[at[1]];
            if (run.digests[at[1]] == digest(r, !brokerTime)) {
                n[1]++;
                n[5] += brokerTime ? 1 : 0;
            } else {
                n[2]++;
            }
            advance(ordered, next);
            while (!next.isEmpty() && offsetOf(ordered, next.peek()) == r.getOffset()) {
                n[4]++; // restored twice
                advance(ordered, next);
            }
        });
        while (!next.isEmpty()) {
            n[4]++;
            advance(ordered, next);
        }
        return new RestoreVerifier.PartitionCheck(archived, new TopicPartition(targetTopic, -1), n[0], n[1], n[2] + outOfOrder, n[3],
                n[4], n[5]);
    }

    private static long offsetOf(List<Run> runs, int[] cursor) {
        return runs.get(cursor[0]).offsets[cursor[1]];
    }

    private static void advance(List<Run> runs, PriorityQueue<int[]> next) {
        int[] cursor = next.poll();
        if (cursor[1] + 1 < runs.get(cursor[0]).size) {
            next.add(new int[] {cursor[0], cursor[1] + 1});
        }
    }

    /** FNV-1a over a key, for finding a key's records without keeping its bytes. */
    static long keyDigest(byte[] key) {
        return bytes(start(), key);
    }

    /** FNV-1a over key, value, headers (without the source header) and, when {@code withTimestamp}, the timestamp. */
    static long digest(ConsumerRecord<byte[], byte[]> r, boolean withTimestamp) {
        long h = start();
        h = bytes(h, r.key());
        h = bytes(h, r.value());
        for (Header header : r.headers()) {
            if (!header.key().equals(RestoredRecords.SOURCE_HEADER)) {
                h = bytes(h, header.key().getBytes(StandardCharsets.UTF_8));
                h = bytes(h, header.value());
            }
        }
        return withTimestamp ? number(h, r.timestamp()) : h;
    }

    static long digest(ArchiveRecord r, boolean withTimestamp) {
        long h = start();
        h = bytes(h, r.getKey());
        h = bytes(h, r.getValue());
        for (int i = 0; i < r.getHeaderKeys().length; i++) {
            h = bytes(h, r.getHeaderKeys()[i].getBytes(StandardCharsets.UTF_8));
            h = bytes(h, r.getHeaderValues()[i]);
        }
        return withTimestamp ? number(h, r.getTimestamp()) : h;
    }

    private static long start() {
        return 0xcbf29ce484222325L;
    }

    private static long bytes(long h, byte[] data) {
        if (data == null) {
            return number(h, -1);
        }
        h = number(h, data.length);
        for (byte b : data) {
            h = (h ^ (b & 0xff)) * 0x100000001b3L;
        }
        return h;
    }

    private static long number(long h, long n) {
        for (int i = 0; i < 8; i++) {
            h = (h ^ ((n >>> (8 * i)) & 0xff)) * 0x100000001b3L;
        }
        return h;
    }
}
