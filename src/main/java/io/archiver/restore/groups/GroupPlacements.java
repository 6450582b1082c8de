package io.archiver.restore.groups;

import io.archiver.restore.plan.RestoreSelection;
import io.archiver.restore.plan.RestorePlan;
import io.archiver.restore.plan.UnitRecords;
import io.archiver.restore.ledger.RestoreProgress;
import io.archiver.restore.ledger.RestoreLedger;
import io.archiver.restore.ledger.RestoreHistory;
import io.archiver.restore.verify.RestoreVerifier;
import io.archiver.archive.ArchiveRoot;
import io.archiver.capture.CaptureStore;
import io.archiver.capture.GroupOffsets;
import io.archiver.config.ArchiverConfig;
import io.archiver.config.ConfigException;
import io.archiver.archive.ArchiveFileReader;
import io.archiver.kafka.AdminCalls;
import io.archiver.kafka.LastStableOffsets;
import io.archiver.kafka.LogScanner;
import io.archiver.record.ArchiveRecord;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConsumerGroupOffsetsOptions;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.DescribeConsumerGroupsOptions;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Consumer groups' places in the restored topics. The archiver captured each chosen group's committed offsets
 * ({@link CaptureStore}): the next record the group would have read. In the restored partition, that record
 * comes after as many restored records as the selection holds before its archived offset, {@code k}; the
 * group's offset in the target is the offset after the k-th record this restore wrote there (the restore's
 * start offset when k is 0), found by a read_committed scan of the target from where the restore began. So the
 * group resumes at exactly the next record it had not processed, whatever offsets the target gave the records
 * (transaction markers take offsets too). Offsets are committed only to groups without members in the target
 * cluster; a point-in-time restore takes each group as captured at or before that time.
 */
public final class GroupPlacements {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final Comparator<TopicPartition> BY_PARTITION =
            Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    /** One group's place in one restored partition: {@code before} restored records precede its archived offset. */
    public record Placement(String group, Instant capturedAt, TopicPartition archived, TopicPartition target, long archivedOffset,
            long before) {}

    private final List<Placement> placements;

    private GroupPlacements(List<Placement> placements) {
        this.placements = placements;
    }

    public static GroupPlacements none() {
        return new GroupPlacements(List.of());
    }

    /**
     * The places of the groups named in {@code groups} (comma-separated) or matching {@code pattern} among the
     * captured ones, for the partitions of {@code plan}; a named group without captured offsets is an error.
     */
    public static GroupPlacements plan(ArchiverConfig config, RestorePlan plan, RestoreSelection selection, String groups,
            String pattern, ArchiveFileReader reader) throws IOException {
        if (selection.repartition()) {
            throw new ConfigException("--consumer-groups cannot be combined with --repartition: records of many archived partitions "
                    + "share a target partition then, and a group's place in each archived partition is not one offset of the target.");
        }
        CaptureStore store = new CaptureStore(ArchiveRoot.of(config));
        List<String> captured = store.groups();
        Set<String> chosen = new LinkedHashSet<>();
        if (groups != null) {
            for (String g : groups.split(",")) {
                if (!g.isBlank()) {
                    chosen.add(g.trim());
                }
            }
        }
        if (pattern != null && !pattern.isBlank()) {
            Pattern p = Pattern.compile(pattern);
            captured.stream().filter(g -> p.matcher(g).matches()).forEach(chosen::add);
        }
        Map<TopicPartition, TreeSet<Long>> thresholds = new HashMap<>();
        List<GroupOffsets> offsets = new ArrayList<>();
        for (String group : chosen) {
            GroupOffsets o = store.groupOffsets(group, selection.until()).orElseThrow(() -> new ConfigException(
                    "No offsets of consumer group '" + group + "' are archived under '" + config.sinkPath() + "'"
                            + (selection.until() == null ? "" : " at or before " + selection.until()) + ". Archived groups: "
                            + captured + ". The archiver job archives a group's offsets when kafka.consumer-groups or "
                            + "kafka.consumer-group-pattern names it."));
            offsets.add(o);
            o.offsets().forEach((tp, offset) -> {
                if (plan.partitions().containsKey(tp)) {
                    thresholds.computeIfAbsent(tp, k -> new TreeSet<>()).add(offset);
                }
            });
        }
        Map<TopicPartition, Map<Long, Long>> before = new HashMap<>();
        for (Map.Entry<TopicPartition, TreeSet<Long>> e : thresholds.entrySet()) {
            before.put(e.getKey(), restoredBefore(e.getKey().partition(), plan.partitions().get(e.getKey()), e.getValue(), selection, reader));
        }
        List<Placement> placements = new ArrayList<>();
        for (GroupOffsets o : offsets) {
            o.offsets().entrySet().stream()
                    .filter(e -> before.containsKey(e.getKey()))
                    .sorted(Map.Entry.comparingByKey(BY_PARTITION))
                    .forEach(e -> placements.add(new Placement(o.group(), o.capturedAt(), e.getKey(),
                            new TopicPartition(selection.target(e.getKey().topic()), e.getKey().partition()), e.getValue(),
                            before.get(e.getKey()).get(e.getValue()))));
        }
        return new GroupPlacements(placements);
    }

    public boolean isEmpty() {
        return placements.isEmpty();
    }

    /**
     * For each threshold offset, how many selected records of the partition's files come before it. A file of its
     * own wholly below a threshold counts by its statistics unless an offset range or time window applies record by record.
     */
    static Map<Long, Long> restoredBefore(int partition, List<RestorePlan.PlannedFile> files, TreeSet<Long> thresholds, RestoreSelection selection,
            ArchiveFileReader reader) throws IOException {
        Map<Long, Long> before = new HashMap<>();
        List<Long> pending = new ArrayList<>(thresholds);
        long[] count = {0};
        int[] next = {0};
        for (List<RestorePlan.PlannedFile> unit : RestorePlan.readUnits(files)) {
            while (next[0] < pending.size() && pending.get(next[0]) <= unit.get(0).firstOffset()) {
                before.put(pending.get(next[0]++), count[0]);
            }
            if (next[0] == pending.size()) {
                break;
            }
            RestorePlan.PlannedFile only = unit.get(0);
            if (unit.size() == 1 && !selection.filtersRecords() && only.lastOffset() < pending.get(next[0])) {
                count[0] += only.records();
                continue;
            }
            UnitRecords.read(reader, partition, UnitRecords.paths(unit), (ArchiveRecord r) -> {
                while (next[0] < pending.size() && pending.get(next[0]) <= r.getOffset()) {
                    before.put(pending.get(next[0]++), count[0]);
                }
                if (selection.takes(r)) {
                    count[0]++;
                }
            });
        }
        while (next[0] < pending.size()) {
            before.put(pending.get(next[0]++), count[0]);
        }
        return before;
    }

    /** What the restore will do for the groups: per group and partition, where it resumes. */
    public void print(PrintWriter out) {
        String group = null;
        for (Placement p : placements) {
            if (!p.group().equals(group)) {
                group = p.group();
                out.printf("consumer group %s (offsets captured %s):%n", group, p.capturedAt());
            }
            out.printf("  %s at archived offset %d resumes in %s after %d restored records%n",
                    p.archived(), p.archivedOffset(), p.target(), p.before());
        }
        out.flush();
    }

    /**
     * After the restore ended: commits each group's offsets in the target cluster, for groups without members
     * there. Returns the groups left alone (active members) so the caller can report them.
     */
    public List<String> commit(ArchiverConfig config, RestorePlan plan, RestoreSelection selection, PrintWriter out) throws Exception {
        if (placements.isEmpty()) {
            return List.of();
        }
        Map<TopicPartition, Set<Long>> wanted = new HashMap<>();
        for (Placement p : placements) {
            if (p.before() > 0) {
                wanted.computeIfAbsent(p.target(), k -> new TreeSet<>()).add(p.before());
            }
        }
        Map<String, Map<TopicPartition, OffsetAndMetadata>> commits = new LinkedHashMap<>();
        List<String> busy = new ArrayList<>();
        try (Admin admin = Admin.create(config.kafkaClientProperties())) {
            Map<String, Long> starts = new HashMap<>();
            Map<TopicPartition, Long> written = new HashMap<>();
            RestoreProgress progress = RestoreProgress.forReading(config, admin, plan, selection);
            for (Placement p : placements) {
                RestoreHistory history = progress.history(p.archived());
                if (history == null || history.runs().isEmpty()) {
                    throw new IllegalStateException("The restore ledger holds no restore of " + p.archived() + " into " + p.target()
                            + ": it did not run");
                }
                if (history.runs().size() > 1) {
                    throw new ConfigException("Cannot place consumer groups in " + p.target() + ": restores with other selections wrote into "
                            + "it (" + history.runs().stream().map(RestoreHistory.Run::describe).toList() + "), so its records are not in "
                            + "archived order and a group's place is no single offset. Drop --consumer-groups, or restore into a new "
                            + "topic in one run.");
                }
                starts.putAll(history.starts());
                written.put(p.target(), history.writtenRecords());
            }
            RestoreLedger.settle(admin, written.keySet());
            Map<Kth, Long> afterRecord = afterRecords(config, admin, starts, wanted, written);
            realign(config, admin, plan, progress, wanted, afterRecord, out);
            Map<TopicPartition, Long> logStarts = logStarts(admin, written.keySet());
            for (Placement p : placements) {
                // a group placed before what retention deleted resumes at the log start, as a consumer there would
                long offset = Math.max(logStarts.get(p.target()),
                        p.before() == 0 ? start(starts, p.target()) : afterRecord.get(new Kth(p.target(), p.before())));
                commits.computeIfAbsent(p.group(), g -> new TreeMap<>(BY_PARTITION)).put(p.target(), new OffsetAndMetadata(offset));
            }
            // a group coordinator that has just died is asked no longer once the cluster moved its groups (AdminCalls)
            Map<String, ConsumerGroupDescription> groups = AdminCalls.retried("whether the groups have members", TIMEOUT,
                    ms -> admin.describeConsumerGroups(commits.keySet(), new DescribeConsumerGroupsOptions().timeoutMs(ms)).all());
            for (Map.Entry<String, Map<TopicPartition, OffsetAndMetadata>> e : commits.entrySet()) {
                ConsumerGroupDescription described = groups.get(e.getKey());
                if (described != null && !described.members().isEmpty()) {
                    busy.add(e.getKey());
                    out.printf("consumer group %s has %d active members in the target cluster: its offsets were not moved. "
                            + "Stop its consumers and run the same restore again (it writes nothing twice and places the group).%n",
                            e.getKey(), described.members().size());
                    continue;
                }
                AdminCalls.retried("the offsets of group " + e.getKey(), TIMEOUT, ms -> admin.alterConsumerGroupOffsets(e.getKey(), e.getValue(),
                        new AlterConsumerGroupOffsetsOptions().timeoutMs(ms)).all());
                e.getValue().forEach((tp, o) -> out.printf("consumer group %s: committed offset %d of %s%n", e.getKey(), o.offset(), tp));
            }
        }
        out.flush();
        return busy;
    }

    /**
     * For each wanted count k of a target partition, the offset after the k-th record this restore wrote there:
     * one read_committed scan per partition from the restore's start offset to its last stable offset. The scan
     * must find every record the ledger says was written there ({@code written}): where the target's own settings
     * removed some (compaction, retention), counting would place a group after records it has not read, so it is
     * refused.
     */
    private static Map<Kth, Long> afterRecords(ArchiverConfig config, Admin admin, Map<String, Long> starts,
            Map<TopicPartition, Set<Long>> wanted, Map<TopicPartition, Long> written) throws Exception {
        Map<Kth, Long> found = new HashMap<>();
        if (wanted.isEmpty()) {
            return found;
        }
        Map<TopicPartition, Long> stable = LastStableOffsets.of(admin, wanted.keySet(), TIMEOUT);
        Map<TopicPartition, LogScanner.Range> ranges = new HashMap<>();
        Map<TopicPartition, Long> logStarts = logStarts(admin, wanted.keySet());
        wanted.keySet().forEach(tp -> ranges.put(tp, new LogScanner.Range(Math.max(start(starts, tp), logStarts.get(tp)), stable.get(tp),
                stable.get(tp))));
        Map<TopicPartition, Long> counted = new HashMap<>();
        try (LogScanner scanner = new LogScanner(config.kafkaClientProperties(), IsolationLevel.READ_COMMITTED, 1 << 20, TIMEOUT)) {
            scanner.scan(ranges, new LogScanner.Visitor() {
                @Override
                public void record(TopicPartition tp, long offset) {
                    long n = counted.merge(tp, 1L, Long::sum);
                    if (wanted.get(tp).contains(n)) {
                        found.put(new Kth(tp, n), offset + 1);
                    }
                }

                @Override
                public void done(TopicPartition tp, long firstBeyond) {}
            }, line -> {});
        }
        wanted.forEach((tp, counts) -> counts.forEach(k -> {
            if (counted.getOrDefault(tp, 0L) != written.get(tp).longValue()) {
                found.remove(new Kth(tp, k)); // the target's settings removed records: counting is wrong, placed by realign
            } else if (!found.containsKey(new Kth(tp, k))) {
                throw new IllegalStateException("Cannot place consumer groups in " + tp + ": it holds " + counted.getOrDefault(tp, 0L)
                        + " records of this restore, " + k + " expected. Run the restore again to complete it.");
            }
        }));
        return found;
    }

    /**
     * The places in target partitions that no longer hold every record the restore wrote (compaction, retention),
     * so that counting did not find them: found by walking what was written alongside what the target holds
     * ({@link RestoreVerifier#resumeOffsets}); refused when the target holds something its settings do not explain.
     */
    private void realign(ArchiverConfig config, Admin admin, RestorePlan plan, RestoreProgress progress, Map<TopicPartition, Set<Long>> wanted,
            Map<Kth, Long> found, PrintWriter out) throws Exception {
        RestoreVerifier verifier = new RestoreVerifier(config, new ArchiveFileReader(io.archiver.record.PayloadFormats.of(config)));
        for (Placement p : placements) {
            Set<Long> counts = wanted.getOrDefault(p.target(), Set.of());
            if (counts.stream().allMatch(k -> found.containsKey(new Kth(p.target(), k)))) {
                continue;
            }
            // position k (from 0) is the first record a group that read k records has not read
            Map<Long, Long> resume = verifier.resumeOffsets(admin, p.archived(), p.target(), plan.partitions().get(p.archived()),
                    progress.history(p.archived()), counts, out).orElseThrow(() -> new ConfigException("Cannot place consumer groups in "
                            + p.target() + ": it does not hold what the restore wrote there as its cleanup.policy allows. Run the "
                            + "same restore with --verify to see what differs."));
            resume.forEach((k, offset) -> found.put(new Kth(p.target(), k), offset));
        }
    }

    /** Where the partitions' logs start now (retention may have moved them past where the restore began). */
    private static Map<TopicPartition, Long> logStarts(Admin admin, Set<TopicPartition> partitions) throws Exception {
        Map<TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> earliest = new HashMap<>();
        partitions.forEach(tp -> earliest.put(tp, org.apache.kafka.clients.admin.OffsetSpec.earliest()));
        Map<TopicPartition, Long> starts = new HashMap<>();
        admin.listOffsets(earliest).all().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS).forEach((tp, info) -> starts.put(tp, info.offset()));
        return starts;
    }

    /** The k-th record (from 1) this restore wrote to a target partition. */
    private record Kth(TopicPartition target, long k) {}

    private static long start(Map<String, Long> starts, TopicPartition target) {
        Long start = starts.get(target.toString());
        if (start == null) {
            throw new IllegalStateException("The restore recorded no start offset of " + target);
        }
        return start;
    }
}
