package io.archiver.audit;

import io.archiver.position.PositionRecord;
import io.archiver.position.PositionStore;

import org.apache.kafka.common.TopicPartition;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Compares an archive with Kafka and says whether it can be trusted: per topic partition the archived range,
 * counts, holes that are real gaps (Kafka holds records there; offsets without records, from compaction or
 * transaction markers, are not gaps), duplicates, lag and the resume position of its position record
 * (archived offsets beyond it are not covered by committed state); and around it, orphaned multipart uploads
 * (uploads of commits cut short, which a start without state completes, are not orphans) and leftover
 * temporary objects.
 */
public final class ArchiveAuditor {

    private final ArchiveVerifier verifier;
    private final KafkaInspector kafka;
    private final Duration orphanAge;

    public ArchiveAuditor(ArchiveVerifier verifier, KafkaInspector kafka, Duration orphanAge) {
        this.verifier = verifier;
        this.kafka = kafka;
        this.orphanAge = orphanAge;
    }

    /** Audits the archive under {@code root} of {@code topics}, as archived by consumer group {@code groupId}. */
    public AuditReport audit(String root, List<String> topics, String groupId, boolean deep) throws Exception {
        VerificationReport archive = verifier.verify(root, deep);
        // Read after the listing: a record is written before its files become visible, so it is never older.
        PositionStore store = new PositionStore(root);
        List<PositionRecord> records = store.allRecords();
        Map<TopicPartition, PositionRecord> positions = new HashMap<>();
        records.forEach(r -> positions.put(new TopicPartition(r.topic(), r.partition()), r));
        Set<String> listedKeys = PositionStore.listedKeys(records);
        List<TopicPartition> known = kafka.partitions(topics);
        Map<TopicPartition, KafkaPartitionState> state = kafka.state(known, groupId);
        List<TopicPartition> partitions = new ArrayList<>(known);
        for (PartitionReport p : archive.partitions().values()) {
            TopicPartition tp = new TopicPartition(p.topic(), p.partition());
            if (!partitions.contains(tp)) {
                partitions.add(tp);
            }
        }
        partitions.sort(Comparator.comparing(TopicPartition::topic).thenComparing(TopicPartition::partition));
        List<PartitionAudit> audits = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            PartitionReport p = archive.partition(tp.topic(), tp.partition());
            KafkaPartitionState k = state.get(tp);
            long position = positions.containsKey(tp) ? positions.get(tp).nextOffset() : -1;
            if (p == null) {
                audits.add(new PartitionAudit(tp.topic(), tp.partition(), 0, 0, 0, -1, -1, List.of(), 0, k, position));
                continue;
            }
            List<Long> missing = new ArrayList<>();
            if (k != null) {
                for (long[] hole : p.holes()) {
                    long from = Math.max(hole[0], k.logStart());
                    if (from < hole[1]) {
                        missing.addAll(kafka.recordsIn(tp, from, hole[1]));
                    }
                }
            }
            audits.add(new PartitionAudit(tp.topic(), tp.partition(), p.files().size(), p.bytes(), p.records(),
                    p.firstOffset(), p.lastOffset(), missing, p.duplicates().size(), k, position));
        }
        Instant staleBefore = Instant.now().minus(orphanAge);
        List<String> stale = new ArrayList<>();
        int recent = 0;
        List<String> cutShort = new ArrayList<>();
        for (IncompleteUploads.Upload upload : archive.incompleteUploads()) {
            if (listedKeys.contains(upload.key())) {
                cutShort.add(upload.toString());
            } else if (upload.initiated() == null || upload.initiated().isBefore(staleBefore)) {
                stale.add(upload.toString());
            } else {
                recent++;
            }
        }
        List<String> leftovers = new ArrayList<>();
        for (ArchiveFile file : archive.uncommittedFiles()) {
            if (file.modificationTime() < staleBefore.toEpochMilli()) {
                leftovers.add(file.path().toString());
            } else {
                recent++;
            }
        }
        return new AuditReport(root, deep, audits, leftovers, stale, recent, cutShort);
    }
}
