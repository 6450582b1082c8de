package io.archiver.restore.ledger;

import io.archiver.restore.plan.RestoreSelection;
import io.archiver.restore.plan.RestorePlan;
import io.archiver.archive.ArchiveRoot;
import io.archiver.config.ArchiverConfig;
import io.archiver.kafka.LastStableOffsets;
import io.archiver.kafka.TopicDescriptions;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;

import java.io.PrintWriter;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static io.archiver.config.RestoreOptions.RESTORE_LEDGER_TOPIC;

/**
 * Per archived partition of a plan ({@code topic-partition}), its entry in the restore ledger ({@link
 * RestoreLedger#key}) and what earlier runs into its current target wrote ({@link RestoreHistory}): an entry
 * written while the target topic had another id (deleted and created again since) no longer counts. A partition
 * no run wrote yet begins where the target partitions end now (or where another archived partition's restore into
 * them began).
 */
public record RestoreProgress(String ledgerTopic, long startedAt, Map<String, String> keys, Map<String, RestoreHistory> histories)
        implements Serializable {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    public RestoreProgress {
        keys = new HashMap<>(keys);
        histories = new HashMap<>(histories);
    }

    /** At a restore's start (see {@link RestoreLedger#openForWriting}); prints what earlier runs wrote. */
    public static RestoreProgress forWriting(ArchiverConfig config, RestorePlan plan, RestoreSelection selection, PrintWriter out) throws Exception {
        try (Admin admin = Admin.create(config.kafkaClientProperties())) {
            Map<String, TopicDescription> targets = describe(admin, plan, selection);
            Map<String, RestoreHistory> entries = RestoreLedger.openForWriting(config, admin, targetPartitions(plan, selection, targets));
            RestoreProgress progress = of(config, admin, plan, selection, targets, entries, out);
            refuseLegacy(config, progress);
            out.flush();
            return progress;
        }
    }

    /** For verification and consumer groups: what the ledger holds of the plan's partitions now. */
    public static RestoreProgress forReading(ArchiverConfig config, Admin admin, RestorePlan plan, RestoreSelection selection) throws Exception {
        Map<String, TopicDescription> targets = describe(admin, plan, selection);
        return of(config, admin, plan, selection, targets, RestoreLedger.openForReading(config, admin), null);
    }

    /** A target partition an earlier version restored into without a ledger, and that no ledger entry covers: refused. */
    private static void refuseLegacy(ArchiverConfig config, RestoreProgress progress) throws java.io.IOException {
        ArchiveRoot archive = ArchiveRoot.of(config);
        Set<String> legacy = LegacyRestoreStarts.targetPartitions(archive);
        for (RestoreHistory history : progress.histories().values()) {
            for (String target : history.starts().keySet()) {
                if (history.runs().isEmpty() && legacy.contains(target)) {
                    throw new io.archiver.config.ConfigException("Cannot restore into " + target + ": a restore of an earlier version of the "
                            + "archiver wrote into it (" + archive.legacyRestoreStarts() + "/) and kept no ledger, so what it wrote "
                            + "cannot be known. Restore into a new topic (--rename), or delete and create the target again.");
                }
            }
        }
    }

    public RestoreHistory history(TopicPartition archived) {
        return histories.get(archived.toString());
    }

    /** Whether any run wrote into the plan's targets. */
    public boolean anyRun() {
        return histories.values().stream().anyMatch(h -> !h.runs().isEmpty());
    }

    private static RestoreProgress of(ArchiverConfig config, Admin admin, RestorePlan plan, RestoreSelection selection,
            Map<String, TopicDescription> targets, Map<String, RestoreHistory> entries, PrintWriter out) throws Exception {
        Map<String, String> keys = new HashMap<>();
        Map<String, RestoreHistory> found = new HashMap<>();
        Map<String, Long> knownStarts = new HashMap<>();
        for (TopicPartition archived : plan.partitions().keySet()) {
            String target = selection.target(archived.topic());
            TopicDescription description = targets.get(target);
            String key = RestoreLedger.key(config.sinkPath(), archived.toString(), target,
                    selection.repartition() ? null : archived.partition());
            keys.put(archived.toString(), key);
            RestoreHistory entry = entries.get(key);
            if (entry == null || description == null) {
                continue;
            }
            if (entry.targetTopicId().equals(description.topicId().toString())) {
                found.put(archived.toString(), entry);
                entry.starts().forEach((tp, start) -> knownStarts.merge(tp, start, Math::min));
            } else if (out != null) {
                out.printf("%s: %s was deleted and created again since an earlier restore wrote into it (its topic id changed): what "
                        + "was written there is gone, so this restore writes every selected record%n", archived, target);
            }
        }
        Set<TopicPartition> unstarted = new HashSet<>();
        Map<String, List<TopicPartition>> partitionsOf = new HashMap<>();
        for (TopicPartition archived : plan.partitions().keySet()) {
            TopicDescription description = targets.get(selection.target(archived.topic()));
            List<TopicPartition> into = description == null ? List.of() : into(archived, description, selection);
            partitionsOf.put(archived.toString(), into);
            into.stream().filter(tp -> !knownStarts.containsKey(tp.toString())).forEach(unstarted::add);
        }
        if (!unstarted.isEmpty()) {
            LastStableOffsets.of(admin, unstarted, TIMEOUT).forEach((tp, lso) -> knownStarts.put(tp.toString(), lso));
        }
        Map<String, RestoreHistory> histories = new HashMap<>();
        for (TopicPartition archived : plan.partitions().keySet()) {
            RestoreHistory history = found.get(archived.toString());
            if (history == null) {
                TopicDescription description = targets.get(selection.target(archived.topic()));
                if (description == null || partitionsOf.get(archived.toString()).isEmpty()) {
                    continue;
                }
                Map<String, Long> starts = new TreeMap<>();
                partitionsOf.get(archived.toString()).forEach(tp -> starts.put(tp.toString(), knownStarts.get(tp.toString())));
                history = RestoreHistory.empty(description.topicId().toString(), starts);
            } else if (out != null) {
                print(archived, selection, history, config.get(RESTORE_LEDGER_TOPIC), out);
            }
            histories.put(archived.toString(), history);
        }
        return new RestoreProgress(config.get(RESTORE_LEDGER_TOPIC), System.currentTimeMillis(), keys, histories);
    }

    private static void print(TopicPartition archived, RestoreSelection selection, RestoreHistory history, String ledger, PrintWriter out) {
        String target = selection.target(archived.topic()) + (selection.repartition() ? " (by key)" : "-" + archived.partition());
        out.printf("%s: %d records already restored into %s by earlier runs (ledger %s); going on after them%n", archived,
                history.writtenRecords(), target, ledger);
        RestoreHistory.Run now = RestoreHistory.Run.of(selection, 0);
        List<String> others = new ArrayList<>();
        history.runs().stream().filter(r -> !r.sameSelection(now)).forEach(r -> others.add(r.describe()));
        if (!others.isEmpty() && !history.runs().get(history.runs().size() - 1).sameSelection(now)) {
            out.printf("  earlier runs selected %s: of what this run selects, it writes only the records they did not take, after "
                    + "theirs (so in the target these may follow records of higher archived offsets)%n", String.join("; ", others));
        }
    }

    /** The target partitions records of {@code archived} go to (none when the target lacks its partition number). */
    private static List<TopicPartition> into(TopicPartition archived, TopicDescription target, RestoreSelection selection) {
        if (!selection.repartition()) {
            return archived.partition() < target.partitions().size() ? List.of(new TopicPartition(target.name(), archived.partition()))
                    : List.of();
        }
        return target.partitions().stream().map(p -> new TopicPartition(target.name(), p.partition())).toList();
    }

    private static Map<String, TopicDescription> describe(Admin admin, RestorePlan plan, RestoreSelection selection) throws Exception {
        Set<String> topics = new HashSet<>();
        plan.partitions().keySet().forEach(tp -> topics.add(selection.target(tp.topic())));
        return TopicDescriptions.of(admin, topics, TIMEOUT).found();
    }

    private static List<TopicPartition> targetPartitions(RestorePlan plan, RestoreSelection selection, Map<String, TopicDescription> targets) {
        List<TopicPartition> all = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (TopicPartition archived : plan.partitions().keySet()) {
            TopicDescription description = targets.get(selection.target(archived.topic()));
            if (description != null) {
                into(archived, description, selection).stream().filter(tp -> seen.add(tp.toString())).forEach(all::add);
            }
        }
        return all;
    }
}
