package io.archiver.restore;

import io.archiver.config.ArchiverConfig;
import io.archiver.config.ConfigException;
import io.archiver.format.ArchiveFileReader;
import io.archiver.kafka.LastStableOffsets;
import io.archiver.kafka.TopicDescriptions;
import io.archiver.position.RestoreStarts;
import io.archiver.record.ArchiveRecord;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * Proves a restore: compares, record by record and in order, what a read_committed consumer reads of each
 * target partition from where the restore began with the selected archived records of its partition: key,
 * value, headers (order and duplicates) and timestamp. Reports per partition how many matched, differed, are
 * missing from the target, or are in the target beyond the restored ones; never payload bytes. A target topic
 * with {@code LogAppendTime} timestamps has its timestamps counted apart: the broker replaced them.
 */
public final class RestoreVerifier {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final Duration POLL = Duration.ofMillis(200);
    private static final int SHOWN = 5;

    /** One partition's comparison. */
    public record PartitionCheck(TopicPartition archived, TopicPartition target, long archivedRecords, long matched, long differing,
            long missing, long extra, long brokerTimestamps) {

        public boolean clean() {
            return differing == 0 && missing == 0 && extra == 0;
        }
    }

    private final ArchiverConfig config;
    private final ArchiveFileReader reader;

    public RestoreVerifier(ArchiverConfig config, ArchiveFileReader reader) {
        this.config = config;
        this.reader = reader;
    }

    /** Compares every partition of {@code plan}; prints a line per partition and a verdict; true when all match. */
    public boolean verify(RestorePlan plan, RestoreSelection selection, PrintWriter out) throws Exception {
        String restoreId = RestoreJob.transactionalIdPrefix(config, selection);
        RestoreStarts startsObject = new RestoreStarts(config.sinkPath(), restoreId);
        Map<String, Long> starts = startsObject.read().orElseThrow(() -> new ConfigException(
                "Nothing to verify: no restore of this selection ran (" + startsObject.path() + " does not exist). Verify with "
                        + "the --topics and --rename the restore was run with."));
        if (selection.repartition()) {
            return verifyKeyed(plan, selection, restoreId, starts, out);
        }
        Map<TopicPartition, Long> stable;
        Set<TopicPartition> targets = new HashSet<>();
        plan.partitions().keySet().forEach(tp -> targets.add(target(selection, tp)));
        try (Admin admin = Admin.create(config.kafkaClientProperties())) {
            AlreadyRestored.awaitCommitsCompleted(admin, restoreId);
            stable = LastStableOffsets.of(admin, targets, TIMEOUT);
        }
        out.printf("%-28s %-28s %10s %10s %9s %8s %8s%n", "archived partition", "restored to", "archived", "matched", "differing",
                "missing", "extra");
        boolean clean = true;
        long matched = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
            for (Map.Entry<TopicPartition, List<RestorePlan.PlannedFile>> e : plan.partitions().entrySet()) {
                TopicPartition target = target(selection, e.getKey());
                Long start = starts.get(target.toString());
                PartitionCheck check = compare(consumer, e.getKey(), target, start == null ? stable.get(target) : start,
                        stable.get(target), e.getValue(), selection, out);
                out.printf("%-28s %-28s %10d %10d %9d %8d %8d%s%n", check.archived(), check.target(), check.archivedRecords(),
                        check.matched(), check.differing(), check.missing(), check.extra(), check.brokerTimestamps() == 0 ? ""
                                : " (" + check.brokerTimestamps() + " timestamps set by the broker: LogAppendTime)");
                clean &= check.clean();
                matched += check.matched();
            }
        }
        return verdict(clean, matched, "in its target partition once, in order", out);
    }

    /** {@link #verify} of a re-partitioned restore ({@link KeyedRestoreCheck}). */
    private boolean verifyKeyed(RestorePlan plan, RestoreSelection selection, String restoreId, Map<String, Long> starts,
            PrintWriter out) throws Exception {
        Set<String> topics = new HashSet<>();
        plan.partitions().keySet().forEach(tp -> topics.add(selection.target(tp.topic())));
        Map<TopicPartition, Long> stable;
        Map<TopicPartition, Long> from = new HashMap<>();
        try (Admin admin = Admin.create(config.kafkaClientProperties())) {
            Set<TopicPartition> targets = new HashSet<>();
            TopicDescriptions.of(admin, topics, TIMEOUT).found().forEach((topic, d) ->
                    d.partitions().forEach(p -> targets.add(new TopicPartition(topic, p.partition()))));
            AlreadyRestored.awaitCommitsCompleted(admin, restoreId);
            stable = LastStableOffsets.of(admin, targets, TIMEOUT);
        }
        stable.forEach((tp, end) -> from.put(tp, starts.getOrDefault(tp.toString(), end)));
        KeyedRestoreCheck keyed = new KeyedRestoreCheck();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
            keyed.readTargets(consumer, from, stable);
        }
        out.printf("%-28s %-28s %10s %10s %9s %8s %8s%n", "archived partition", "restored by key to", "archived", "matched",
                "differing", "missing", "extra");
        boolean clean = true;
        long matched = 0;
        for (Map.Entry<TopicPartition, List<RestorePlan.PlannedFile>> e : plan.partitions().entrySet()) {
            String topic = selection.target(e.getKey().topic());
            PartitionCheck check = keyed.compare(e.getKey(), topic, e.getValue(), selection, reader);
            out.printf("%-28s %-28s %10d %10d %9d %8d %8d%n", check.archived(), topic, check.archivedRecords(), check.matched(),
                    check.differing(), check.missing(), check.extra());
            clean &= check.clean();
            matched += check.matched();
        }
        for (Map.Entry<TopicPartition, Long> foreign : keyed.withoutSource().entrySet()) {
            out.printf("  %s: %d records without the %s header: written by someone else%n", foreign.getKey(), foreign.getValue(),
                    RestoredRecords.SOURCE_HEADER);
            clean = false;
        }
        return verdict(clean, matched, "once, in its key's partition, in order per key", out);
    }

    private static boolean verdict(boolean clean, long matched, String where, PrintWriter out) {
        out.println(clean
                ? "Restore verified: every selected archived record is " + where + ", as archived (" + matched + " records)."
                : "Restore NOT verified: see the differing, missing and extra records above.");
        out.flush();
        return clean;
    }

    private PartitionCheck compare(KafkaConsumer<byte[], byte[]> consumer, TopicPartition archived, TopicPartition target, long from,
            long end, List<RestorePlan.PlannedFile> files, RestoreSelection selection, PrintWriter out) throws IOException {
        TargetRecords actual = new TargetRecords(consumer, target, from, end);
        long[] n = new long[6]; // archived, matched, differing, missing, extra, broker timestamps
        UnitRecords.readPartition(reader, archived.partition(), files, selection, r -> {
            n[0]++;
            ConsumerRecord<byte[], byte[]> k = actual.next();
            if (k == null) {
                n[3]++;
                return;
            }
            String difference = difference(r, k);
            if (difference.isEmpty()) {
                n[1]++;
            } else if (difference.equals("timestamp") && k.timestampType() == TimestampType.LOG_APPEND_TIME) {
                n[1]++;
                n[5]++;
            } else if (n[2]++ < SHOWN) {
                out.printf("  %s: archived offset %d restored at %d differs in %s%n", target, r.getOffset(), k.offset(), difference);
            }
        });
        while (actual.next() != null) {
            n[4]++;
        }
        return new PartitionCheck(archived, target, n[0], n[1], n[2], n[3], n[4], n[5]);
    }

    /** Which parts of a restored record differ from the archived one ("" when none), never their bytes. */
    static String difference(ArchiveRecord archived, ConsumerRecord<byte[], byte[]> restored) {
        StringBuilder parts = new StringBuilder();
        if (!Arrays.equals(archived.getKey(), restored.key())) {
            parts.append("key ");
        }
        if (!Arrays.equals(archived.getValue(), restored.value())) {
            parts.append("value ");
        }
        Header[] headers = restored.headers().toArray();
        boolean sameHeaders = headers.length == archived.getHeaderKeys().length;
        for (int i = 0; sameHeaders && i < headers.length; i++) {
            sameHeaders = headers[i].key().equals(archived.getHeaderKeys()[i])
                    && Arrays.equals(headers[i].value(), archived.getHeaderValues()[i]);
        }
        if (!sameHeaders) {
            parts.append("headers ");
        }
        if (archived.getTimestamp() != restored.timestamp()) {
            parts.append("timestamp ");
        }
        return parts.toString().trim();
    }

    private KafkaConsumer<byte[], byte[]> consumer() {
        Properties props = new Properties();
        props.putAll(config.kafkaClientProperties());
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, IsolationLevel.READ_COMMITTED.toString());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private static TopicPartition target(RestoreSelection selection, TopicPartition archived) {
        return new TopicPartition(selection.target(archived.topic()), archived.partition());
    }

    /** A target partition's committed records from {@code from} up to {@code end}, pulled as the archive is read. */
    private static final class TargetRecords {
        private final KafkaConsumer<byte[], byte[]> consumer;
        private final TopicPartition tp;
        private final long end;
        private final ArrayDeque<ConsumerRecord<byte[], byte[]>> buffered = new ArrayDeque<>();

        TargetRecords(KafkaConsumer<byte[], byte[]> consumer, TopicPartition tp, long from, long end) {
            this.consumer = consumer;
            this.tp = tp;
            this.end = end;
            consumer.assign(List.of(tp));
            consumer.seek(tp, from);
        }

        /** The next record, null once the position reached the end (waiting at most the timeout for progress). */
        ConsumerRecord<byte[], byte[]> next() {
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (buffered.isEmpty()) {
                if (consumer.position(tp) >= end) {
                    return null;
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("Reading " + tp + " made no progress for " + TIMEOUT.toSeconds() + " s at offset "
                            + consumer.position(tp) + " of " + end);
                }
                for (Iterator<ConsumerRecord<byte[], byte[]>> it = consumer.poll(POLL).records(tp).iterator(); it.hasNext(); ) {
                    ConsumerRecord<byte[], byte[]> r = it.next();
                    if (r.offset() < end) {
                        buffered.add(r);
                    }
                }
            }
            return buffered.poll();
        }
    }
}
