package io.archiver.restore;

import io.archiver.archive.ArchiveFileReader;
import io.archiver.audit.KafkaInspector;
import io.archiver.config.ArchiverConfig;
import io.archiver.config.ConfigException;
import io.archiver.record.PayloadFormats;
import io.archiver.record.RecordDigest;
import io.archiver.restore.ledger.RestoreHistory;
import io.archiver.restore.ledger.RestoreProgress;
import io.archiver.restore.plan.RestorePlan;
import io.archiver.restore.plan.RestoreSelection;
import io.archiver.restore.plan.UnitRecords;
import io.archiver.table.TableArchiveFiles;

import org.apache.kafka.common.TopicPartition;

import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Keeps a restore with a changed selection from leaving a stale value as a key's latest on a compacted target. A run
 * writes the records it newly selects after what earlier runs wrote; where it writes a key's record of a lower archived
 * offset than one an earlier run wrote of that key (timestamps out of offset order, an earlier {@code --since}, a lower
 * offset range), compaction keeps the older value as the key's latest. Such a run is refused, naming how many keys of
 * each partition, unless the operator accepts it. Only targets with {@code cleanup.policy} compact and partitions that
 * earlier runs of another selection wrote into are read (the archived records' keys, once).
 */
final class CompactedTargetOrder {

    static final String ACCEPT_FLAG = "--allow-stale-latest";

    private CompactedTargetOrder() {}

    /** Refuses the run of {@code selection} when it would leave stale latest values, unless {@code accept}; then it prints them. */
    static void check(ArchiverConfig config, RestorePlan plan, RestoreSelection selection, RestoreProgress progress, boolean accept,
            PrintWriter out) throws Exception {
        RestoreHistory.Run now = RestoreHistory.Run.of(selection, 0);
        Map<TopicPartition, RestoreHistory> reselected = new TreeMap<>((a, b) -> a.toString().compareTo(b.toString()));
        plan.partitions().keySet().forEach(tp -> {
            RestoreHistory h = progress.history(tp);
            if (h != null && h.runs().stream().anyMatch(run -> !run.sameSelection(now))) {
                reselected.put(tp, h);
            }
        });
        if (reselected.isEmpty()) {
            return;
        }
        Set<String> targets = new HashSet<>();
        reselected.keySet().forEach(tp -> targets.add(selection.target(tp.topic())));
        Set<String> compacted;
        try (KafkaInspector kafka = new KafkaInspector(config.kafkaClientProperties())) {
            compacted = kafka.compacted(targets);
        }
        reselected.keySet().removeIf(tp -> !compacted.contains(selection.target(tp.topic())));
        if (reselected.isEmpty()) {
            return;
        }
        ArchiveFileReader reader = new ArchiveFileReader(PayloadFormats.of(config));
        // earlier runs may have written records outside this run's offsets and times: every file of the partitions
        RestorePlan whole = RestorePlan.of(TableArchiveFiles.of(config), new RestoreSelection(selection.topics(), selection.topicPattern(),
                selection.partitions(), selection.renames(), 0, Long.MAX_VALUE, null, null, selection.repartition()), reader);
        Map<TopicPartition, Long> stale = new TreeMap<>((a, b) -> a.toString().compareTo(b.toString()));
        for (Map.Entry<TopicPartition, RestoreHistory> e : reselected.entrySet()) {
            long keys = staleKeys(reader, e.getKey().partition(), whole.partitions().get(e.getKey()), e.getValue(), now);
            if (keys > 0) {
                stale.put(e.getKey(), keys);
            }
        }
        if (stale.isEmpty()) {
            return;
        }
        StringBuilder which = new StringBuilder();
        stale.forEach((tp, keys) -> which.append(which.length() == 0 ? "" : ", ").append(keys).append(" keys of ").append(tp));
        String message = "this run writes records of " + which + " after newer records of the same keys that earlier runs of another"
                + " selection wrote, on a compacted target (cleanup.policy compact): compaction would keep the older value as each such"
                + " key's latest";
        if (!accept) {
            throw new ConfigException("Refusing to restore: " + message + ". Restore into a new topic (--rename), or pass " + ACCEPT_FLAG
                    + " to write them anyway.");
        }
        out.printf("Writing anyway (%s): %s.%n", ACCEPT_FLAG, message);
    }

    /**
     * Keys of which this run writes only records of lower archived offsets than a record an earlier run wrote: the record
     * written last, the one compaction keeps, is then not the key's newest. Keys are told apart by a 64-bit hash.
     */
    private static long staleKeys(ArchiveFileReader reader, int partition, List<RestorePlan.PlannedFile> files, RestoreHistory history,
            RestoreHistory.Run now) throws Exception {
        Map<Long, long[]> newest = new HashMap<>();
        for (RestorePlan.PlannedFile file : files) {
            UnitRecords.read(reader, partition, List.of(file.path()), r -> {
                if (r.getKey() == null) {
                    return;
                }
                boolean written = history.written(r);
                if (!written && !now.selects(r)) {
                    return;
                }
                long[] offsets = newest.computeIfAbsent(RecordDigest.hash(ByteBuffer.wrap(r.getKey())), k -> new long[] {-1, -1});
                int slot = written ? 0 : 1;
                offsets[slot] = Math.max(offsets[slot], r.getOffset());
            });
        }
        return newest.values().stream().filter(o -> o[1] >= 0 && o[0] > o[1]).count();
    }
}
