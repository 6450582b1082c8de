package io.archiver.restore.verify;

import io.archiver.restore.plan.RestoreSelection;
import io.archiver.restore.plan.RestorePlan;
import io.archiver.restore.plan.UnitRecords;
import io.archiver.restore.ledger.RestoreProgress;
import io.archiver.restore.ledger.RestoreLedger;
import io.archiver.restore.ledger.RestoredRecords;
import io.archiver.restore.ledger.RestoreHistory;
import io.archiver.config.ArchiverConfig;
import io.archiver.config.ConfigException;
import io.archiver.archive.ArchiveFileReader;
import io.archiver.kafka.TopicDescriptions;
import io.archiver.record.ArchiveRecord;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.TimestampType;

import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Proves a restore: compares what a read_committed consumer reads of each target partition from where the first
 * restore into it began with what the restore ledger says was written there ({@link RestoreHistory}: each run's
 * records, run after run, each in archived offset order), record by record: key, value, headers (order and
 * duplicates) and timestamp. Selected archived records that no run wrote count as missing. On a target whose
 * {@code cleanup.policy} deletes, records below the target's log start offset may be gone; on a compacted target
 * a record may be gone when a later record of its key was written after it, and a tombstone that is its key's
 * last when the target's {@code delete.retention.ms} has passed since its run started; every other written record
 * must be there, in order. Reports per partition how many matched, differed, are missing from the target, or are
 * in the target beyond the restored ones, and which rule it applied; never payload bytes. A target topic with
 * {@code LogAppendTime} timestamps has its timestamps counted apart: the broker replaced them.
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

    /** What the target's own settings may have removed of what was written, and how much they did. */
    record TargetRules(boolean compacted, long deleteRetentionMs, long logStart, long restoreStart) {

        boolean retention() {
            return logStart > restoreStart;
        }

        String describe(long[] gone) {
            List<String> rules = new ArrayList<>();
            if (retention()) {
                rules.add("retention (log start " + logStart + "): " + gone[0] + " gone");
            }
            if (compacted) {
                rules.add("compaction: " + gone[1] + " superseded and " + gone[2] + " tombstones gone");
            }
            return rules.isEmpty() ? "record by record" : String.join("; ", rules);
        }
    }

    private final ArchiverConfig config;
    private final ArchiveFileReader reader;

    public RestoreVerifier(ArchiverConfig config, ArchiveFileReader reader) {
        this.config = config;
        this.reader = reader;
    }

    /** The target partitions as a comparison needs them: where reading ends, where their logs start, their topics' settings. */
    record TargetState(Map<TopicPartition, Long> stable, Map<TopicPartition, Long> logStarts, Map<String, Config> settings) {

        /** Once every transaction on {@code targets} is decided. */
        static TargetState of(Admin admin, Set<TopicPartition> targets) throws Exception {
            Map<TopicPartition, Long> stable = RestoreLedger.settle(admin, targets);
            Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
            targets.forEach(tp -> earliest.put(tp, OffsetSpec.earliest()));
            Map<TopicPartition, Long> logStarts = new HashMap<>();
            admin.listOffsets(earliest).all().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS).forEach((tp, info) -> logStarts.put(tp, info.offset()));
            List<ConfigResource> topics = targets.stream().map(TopicPartition::topic).distinct()
                    .map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t)).toList();
            Map<String, Config> settings = new HashMap<>();
            admin.describeConfigs(topics).all().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS).forEach((r, c) -> settings.put(r.name(), c));
            return new TargetState(stable, logStarts, settings);
        }

        /** The rules for {@code target}, into which the first restore began writing at {@code start}. */
        TargetRules rules(TopicPartition target, long start) {
            Config c = settings.get(target.topic());
            return new TargetRules(value(c, "cleanup.policy", "delete").contains("compact"),
                    Long.parseLong(value(c, "delete.retention.ms", "86400000")), logStarts.get(target), start);
        }

        long start(TopicPartition target, RestoreHistory history) {
            return history == null ? stable.get(target) : history.starts().getOrDefault(target.toString(), stable.get(target));
        }

        private static String value(Config config, String name, String otherwise) {
            ConfigEntry entry = config == null ? null : config.get(name);
            return entry == null || entry.value() == null ? otherwise : entry.value();
        }
    }

    /** Compares every partition of {@code plan}; prints a line per partition and a verdict; true when all match. */
    public boolean verify(RestorePlan plan, RestoreSelection selection, PrintWriter out) throws Exception {
        RestoreProgress progress;
        TargetState state;
        try (Admin admin = Admin.create(config.kafkaClientProperties())) {
            progress = RestoreProgress.forReading(config, admin, plan, selection);
            if (!progress.anyRun()) {
                throw new ConfigException("Nothing to verify: the restore ledger (" + progress.ledgerTopic() + ") holds no restore of this "
                        + "archive into these targets. Verify with the --topics, --rename and --repartition the restore was run with.");
            }
            if (selection.repartition()) {
                return verifyKeyed(admin, plan, selection, progress, out);
            }
            Set<TopicPartition> targets = new HashSet<>();
            plan.partitions().keySet().forEach(tp -> targets.add(target(selection, tp)));
            state = TargetState.of(admin, targets);
        }
        out.printf("%-28s %-28s %10s %10s %9s %8s %8s  %s%n", "archived partition", "restored to", "archived", "matched", "differing",
                "missing", "extra", "rule");
        boolean clean = true;
        long matched = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
            for (Map.Entry<TopicPartition, List<RestorePlan.PlannedFile>> e : plan.partitions().entrySet()) {
                TopicPartition target = target(selection, e.getKey());
                RestoreHistory history = progress.history(e.getKey());
                TargetRules rules = state.rules(target, state.start(target, history));
                long[] gone = new long[3];
                PartitionCheck check = compare(consumer, e.getKey(), target, rules, state.stable().get(target), e.getValue(), selection,
                        history, gone, null, out);
                out.printf("%-28s %-28s %10d %10d %9d %8d %8d  %s%s%n", check.archived(), check.target(), check.archivedRecords(),
                        check.matched(), check.differing(), check.missing(), check.extra(), rules.describe(gone),
                        check.brokerTimestamps() == 0 ? "" : " (" + check.brokerTimestamps() + " timestamps set by the broker: LogAppendTime)");
                clean &= check.clean();
                matched += check.matched();
            }
        }
        return verdict(clean, matched, "in its target partition once, in order", out);
    }

    /**
     * Where consumer groups resume in a target whose own settings removed records the restore wrote (so that
     * counting the records it holds cannot find them): for each wanted count k, the offset of the first record the
     * target still holds among those written after the first k (the end of what was written when it holds none).
     * Empty when the target partition does not hold what the rules allow (see {@link #verify}).
     */
    public Optional<Map<Long, Long>> resumeOffsets(Admin admin, TopicPartition archived, TopicPartition target, List<RestorePlan.PlannedFile> files,
            RestoreHistory history, Set<Long> wanted, PrintWriter out) throws Exception {
        TargetState state = TargetState.of(admin, Set.of(target));
        long end = state.stable().get(target);
        TreeMap<Long, Long> places = new TreeMap<>();
        wanted.forEach(k -> places.put(k, null));
        PartitionCheck check;
        try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
            check = compare(consumer, archived, target, state.rules(target, state.start(target, history)), end, files,
                    history.runs().get(history.runs().size() - 1).selection(), history, new long[3], places, out);
        }
        if (!check.clean()) {
            return Optional.empty();
        }
        places.replaceAll((k, offset) -> offset == null ? end : offset);
        return Optional.of(places);
    }

    /** {@link #verify} of a re-partitioned restore ({@link KeyedRestoreCheck}). */
    private boolean verifyKeyed(Admin admin, RestorePlan plan, RestoreSelection selection, RestoreProgress progress, PrintWriter out)
            throws Exception {
        Set<String> topics = new HashSet<>();
        plan.partitions().keySet().forEach(tp -> topics.add(selection.target(tp.topic())));
        Set<TopicPartition> targets = new HashSet<>();
        TopicDescriptions.of(admin, topics, TIMEOUT).found().forEach((topic, d) ->
                d.partitions().forEach(p -> targets.add(new TopicPartition(topic, p.partition()))));
        Map<TopicPartition, Long> stable = RestoreLedger.settle(admin, targets);
        Map<String, Long> starts = new HashMap<>();
        progress.histories().values().forEach(h -> h.starts().forEach((tp, start) -> starts.merge(tp, start, Math::min)));
        Map<TopicPartition, Long> from = new HashMap<>();
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
            PartitionCheck check = keyed.compare(e.getKey(), topic, e.getValue(), selection, progress.history(e.getKey()), reader);
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

    /**
     * Walks what was written into {@code target} (each run's records in turn) alongside the target's records from
     * the restore's start (its log start, if retention moved that beyond), as {@code rules} allow.
     */
    private PartitionCheck compare(KafkaConsumer<byte[], byte[]> consumer, TopicPartition archived, TopicPartition target,
            TargetRules rules, long end, List<RestorePlan.PlannedFile> files, RestoreSelection selection, RestoreHistory history,
            long[] gone, TreeMap<Long, Long> places, PrintWriter out) throws IOException {
        TargetRecords actual = new TargetRecords(consumer, target, Math.max(rules.restoreStart(), rules.logStart()), end);
        long[] n = new long[6]; // archived, matched, differing, missing, extra, broker timestamps
        List<RestoreHistory.Run> runs = history == null ? List.of() : history.runs();
        Map<Long, Long> lastOfKey = rules.compacted() ? lastOfEachKey(archived, files, history) : Map.of();
        long[] position = {0};
        boolean[] matchedAny = {false};
        long now = System.currentTimeMillis();
        readWritten(archived, files, history, (r, run) -> {
            boolean selected = selection.takes(r);
            long at = position[0]++;
            n[0] += selected ? 1 : 0;
            ConsumerRecord<byte[], byte[]> k = actual.peek();
            String difference = k == null ? null : difference(r, k);
            boolean brokerTime = "timestamp".equals(difference) && k.timestampType() == TimestampType.LOG_APPEND_TIME;
            if (k != null && (difference.isEmpty() || brokerTime)) {
                actual.next();
                matchedAny[0] = true;
                if (places != null) {
                    // every wanted count up to this record's position resumes here (the records between are gone)
                    places.headMap(at, true).replaceAll((wantedK, offset) -> offset == null ? k.offset() : offset);
                }
                n[1] += selected ? 1 : 0;
                n[5] += selected && brokerTime ? 1 : 0;
            } else if (rules.retention() && !matchedAny[0]) {
                gone[0]++;
            } else if (rules.compacted() && r.getKey() != null && lastOfKey.get(KeyedRestoreCheck.keyDigest(r.getKey())) > at) {
                gone[1]++;
            } else if (rules.compacted() && r.getValue() == null && now - runs.get(run).lastStart() >= rules.deleteRetentionMs()) {
                gone[2]++;
            } else if (k != null && !rules.compacted()) {
                actual.next();
                if (n[2]++ < SHOWN) {
                    out.printf("  %s: archived offset %d restored at %d differs in %s%n", target, r.getOffset(), k.offset(), difference);
                }
            } else if (n[3]++ < SHOWN) {
                out.printf("  %s: archived offset %d is not in the target%s%n", target, r.getOffset(), k == null ? ""
                        : " (the next record there, at " + k.offset() + ", is another)");
            }
        });
        // selected records no run wrote
        UnitRecords.readPartition(reader, archived.partition(), files, selection, r -> {
            if (history == null || !history.written(r)) {
                n[0]++;
                n[3]++;
            }
        });
        while (actual.next() != null) {
            n[4]++;
        }
        return new PartitionCheck(archived, target, n[0], n[1], n[2], n[3], n[4], n[5]);
    }

    /** Each written record in the order the runs wrote them into the target, with the index of its run. */
    private void readWritten(TopicPartition archived, List<RestorePlan.PlannedFile> files, RestoreHistory history,
            java.util.function.ObjIntConsumer<ArchiveRecord> visitor) throws IOException {
        for (int run = 0; history != null && run < history.runs().size(); run++) {
            int index = run;
            for (List<RestorePlan.PlannedFile> unit : RestorePlan.readUnits(files)) {
                UnitRecords.read(reader, archived.partition(), UnitRecords.paths(unit), r -> {
                    if (history.writtenBy(index, r)) {
                        visitor.accept(r, index);
                    }
                });
            }
        }
    }

    /** Per key (its digest), the position in the written order of its last written record. */
    private Map<Long, Long> lastOfEachKey(TopicPartition archived, List<RestorePlan.PlannedFile> files, RestoreHistory history)
            throws IOException {
        Map<Long, Long> last = new HashMap<>();
        long[] position = {0};
        readWritten(archived, files, history, (r, run) -> {
            long at = position[0]++;
            if (r.getKey() != null) {
                last.put(KeyedRestoreCheck.keyDigest(r.getKey()), at);
            }
        });
        return last;
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
        return RestoreLedger.readCommittedConsumer(config);
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

        /** The next record without taking it. */
        ConsumerRecord<byte[], byte[]> peek() {
            ConsumerRecord<byte[], byte[]> next = next();
            if (next != null) {
                buffered.addFirst(next);
            }
            return next;
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
