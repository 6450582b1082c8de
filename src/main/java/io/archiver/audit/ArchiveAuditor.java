package io.archiver.audit;

import io.archiver.archive.ArchiveFile;
import io.archiver.archive.ArchiveFiles;
import io.archiver.archive.ArchiveListing;
import io.archiver.archive.ArchiveRoot;
import io.archiver.archive.ArchiveVerifier;
import io.archiver.archive.IncompleteUploads;
import io.archiver.archive.OffsetRuns;
import io.archiver.archive.PartitionReport;
import io.archiver.archive.RejectedRecords;
import io.archiver.archive.VerificationReport;
import io.archiver.kafka.LogScanner;
import io.archiver.position.PositionRecord;
import io.archiver.position.PositionStore;

import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.LongStream;

/**
 * Compares an archive with Kafka and says whether it can be trusted. The truth is what a {@code read_committed}
 * consumer of each partition reads, and the comparison runs both ways: committed records the archive lacks
 * (missing), offsets archived more than once (duplicates), and archived records no committed reader sees
 * (aborted or still open transactions, offsets Kafka holds nothing at). Offsets without records for a
 * committed reader (transaction markers, aborted records, compaction) are holes, not gaps. Each partition's
 * log is read once, sequentially, over the archived range, while the archive itself is read
 * ({@link CommittedLogComparer}); the raw log is read only where archived offsets need a cause.
 * Committed records the job rejected on purpose ({@code errors.policy}: dead-lettered, skipped) are accounted
 * for, not missing; a deep audit compares each archived record's content with Kafka's too. Around it:
 * lag up to the last stable offset, the resume position of the position record (archived offsets beyond it
 * are not covered by committed state), orphaned multipart uploads (uploads of commits cut short, which a start
 * without state completes, are not orphans) and leftover temporary objects.
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

    /**
     * Audits the archive of {@code files} of {@code topics}, as archived by consumer group {@code groupId}, its dead
     * letters in the default place ({@link ArchiveRoot#defaultDeadLetters()}).
     */
    public AuditReport audit(ArchiveFiles files, List<String> topics, String groupId, boolean deep) throws Exception {
        return audit(files, files.root().defaultDeadLetters(), topics, groupId, deep, line -> {});
    }

    /**
     * {@link #audit(String, List, String, boolean)} with the dead letters under {@code deadLetterPath}, telling {@code
     * progress} how far it got on long audits.
     */
    public AuditReport audit(ArchiveFiles files, String deadLetterPath, List<String> topics, String groupId, boolean deep,
            Consumer<String> progress) throws Exception {
        ArchiveRoot root = files.root();
        ArchiveListing listing = files.list();
        RejectedRecords rejected = RejectedRecords.read(root, deadLetterPath);
        // Read after the listing: a position record is written before its files become visible, so it is never
        // older than them, and every listed record lies below the last stable offsets read now.
        Collection<PositionRecord> records = new PositionStore(root).read().all();
        Map<TopicPartition, PositionRecord> positions = new HashMap<>();
        records.forEach(r -> positions.put(r.topicPartition(), r));
        Set<String> listedKeys = PositionStore.listedKeys(records);
        List<TopicPartition> known = kafka.partitions(topics);
        Map<TopicPartition, KafkaPartitionState> state = kafka.state(known, groupId);
        Set<String> compacted = kafka.compacted(topics);
        progress.accept(String.format("Reading %d archive files under %s%s and the committed log of %d partitions of Kafka",
                listing.committed().size(), root, deep ? " (every record)" : "", known.size()));
        CommittedLogComparer comparer = new CommittedLogComparer(kafka, state, rejected, deep, progress);
        VerificationReport archive;
        try {
            archive = verifier.verify(root, listing, deep, comparer::submit);
        } catch (IOException | RuntimeException e) {
            comparer.abort();
            throw e;
        }
        Map<TopicPartition, LogComparison> comparisons = comparer.finish();
        archive = withFilesCommittedWhileListed(files, listing, archive, comparisons, state, rejected, deep, progress);
        List<TopicPartition> partitions = new ArrayList<>(known);
        for (PartitionReport p : archive.partitions().values()) {
            TopicPartition tp = new TopicPartition(p.topic(), p.partition());
            if (!partitions.contains(tp)) {
                partitions.add(tp);
            }
        }
        partitions.sort(Comparator.comparing(TopicPartition::topic).thenComparing(TopicPartition::partition));

        Map<TopicPartition, long[]> inRawLog = readRawLogAt(comparisons, state, progress);
        List<PartitionAudit> audits = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            PartitionReport p = archive.partition(tp.topic(), tp.partition());
            KafkaPartitionState k = state.get(tp);
            long position = positions.containsKey(tp) ? positions.get(tp).nextOffset() : -1;
            LogComparison c = comparisons.get(tp);
            if (c == null) {
                // Kafka does not know the partition (topic deleted or not listed): nothing to compare with
                audits.add(new PartitionAudit(tp.topic(), tp.partition(), p, null, new OffsetRuns(), ArchivedNotInLog.NONE, 0, -1, position,
                        null));
                continue;
            }
            ArchivedNotInLog notInLog = ArchivedNotInLog.classify(
                    c.notInLog(), c.runStarts(), inRawLog.getOrDefault(tp, new long[0]), k, compacted.contains(tp.topic()));
            audits.add(new PartitionAudit(tp.topic(), tp.partition(), p, k, c.missing(), notInLog, c.beforeLogStart(),
                    c.firstUnarchived(), position, c));
        }
        Instant staleBefore = Instant.now().minus(orphanAge);
        IncompleteUploads.Sorted uploads = IncompleteUploads.sort(archive.incompleteUploads(), listedKeys, staleBefore);
        List<String> stale = uploads.orphaned().stream().map(IncompleteUploads.Upload::toString).toList();
        List<String> cutShort = uploads.cutShort().stream().map(IncompleteUploads.Upload::toString).toList();
        int recent = uploads.recent().size();
        List<String> leftovers = new ArrayList<>();
        for (ArchiveFile file : archive.uncommittedFiles()) {
            if (file.modificationTime() < staleBefore.toEpochMilli()) {
                leftovers.add(file.path().toString());
            } else {
                recent++;
            }
        }
        return new AuditReport(root.uri(), deep, audits, leftovers, stale, recent, cutShort);
    }

    /**
     * A listing is not a snapshot: S3 lists a folder page by page, and a job that commits meanwhile can put a file
     * on a page already read while its next commit's file lands on a page still to come, which shows a gap that
     * is not there. Partitions with missing records that have files the first listing lacked
     * ({@link ArchiveFiles#committedWhileListed}) are read and compared again from the later listing,
     * up to the last offset the first one had, or the last rejected record (read after the first listing) where that is
     * later (files committed later hold only later offsets of a partition). Updates {@code comparisons}; returns the
     * archive as read then.
     */
    private VerificationReport withFilesCommittedWhileListed(ArchiveFiles files, ArchiveListing listing, VerificationReport archive,
            Map<TopicPartition, LogComparison> comparisons, Map<TopicPartition, KafkaPartitionState> state, RejectedRecords rejected,
            boolean deep, Consumer<String> progress) throws Exception {
        Set<String> gapped = new HashSet<>();
        comparisons.forEach((tp, c) -> {
            if (!c.missing().isEmpty()) {
                gapped.add(VerificationReport.id(tp.topic(), tp.partition()));
            }
        });
        if (gapped.isEmpty()) {
            return archive;
        }
        Set<String> listed = new HashSet<>();
        listing.committed().forEach(f -> listed.add(f.path().toString()));
        ArchiveListing later = files.committedWhileListed(listing, gapped);
        List<ArchiveFile> added = new ArrayList<>();
        Set<String> grown = new HashSet<>();
        for (ArchiveFile f : later.committed()) {
            grown.add(VerificationReport.id(f.topic(), f.partition()));
            if (!listed.contains(f.path().toString())) {
                added.add(f);
            }
        }
        if (grown.isEmpty()) {
            return archive;
        }
        progress.accept(String.format("Reading %d partitions again: %d files with records of theirs were committed while the archive"
                + " was listed", grown.size(), added.size()));
        Map<TopicPartition, KafkaPartitionState> ofGrown = new HashMap<>();
        state.forEach((tp, k) -> {
            if (grown.contains(VerificationReport.id(tp.topic(), tp.partition()))) {
                ofGrown.put(tp, k);
            }
        });
        CommittedLogComparer again = new CommittedLogComparer(kafka, ofGrown, rejected, deep, progress);
        List<PartitionReport> reread = new ArrayList<>();
        try {
            verifier.read(files.root(), later, deep, report -> {
                // rejected records were read after the first listing: files committed in between may hold offsets up to theirs
                PartitionReport first = archive.partition(report.topic(), report.partition());
                long upTo = Math.max(first == null ? -1 : first.lastOffset(), rejected.of(report.topic(), report.partition()).last());
                PartitionReport upToFirstListing = report.upTo(upTo);
                reread.add(upToFirstListing);
                again.submit(upToFirstListing);
            });
        } catch (IOException | RuntimeException e) {
            again.abort();
            throw e;
        }
        comparisons.putAll(again.finish());
        return archive.withPartitions(reread, added);
    }

    /**
     * Of the archived offsets below the last stable offset that the committed log lacks, those the raw log
     * holds (the records of aborted transactions), read per partition over the span of those offsets only:
     * nothing is read when the archive holds only committed records.
     */
    private Map<TopicPartition, long[]> readRawLogAt(
            Map<TopicPartition, LogComparison> comparisons, Map<TopicPartition, KafkaPartitionState> state,
            Consumer<String> progress) {
        Map<TopicPartition, long[]> suspects = new HashMap<>();
        Map<TopicPartition, LogScanner.Range> ranges = new HashMap<>();
        comparisons.forEach((tp, c) -> {
            long stable = state.get(tp).lastStable();
            long[] below = Arrays.stream(c.notInLog()).filter(o -> o < stable).toArray();
            if (below.length > 0) {
                suspects.put(tp, below);
                long end = below[below.length - 1] + 1;
                ranges.put(tp, new LogScanner.Range(below[0], end, end));
            }
        });
        Map<TopicPartition, long[]> found = new HashMap<>();
        if (ranges.isEmpty()) {
            return found;
        }
        progress.accept("Reading the records of aborted transactions in " + ranges.size() + " partitions");
        Map<TopicPartition, LongStream.Builder> inLog = new HashMap<>();
        try (LogScanner scanner = kafka.scanner(IsolationLevel.READ_UNCOMMITTED)) {
            scanner.scan(ranges, new LogScanner.Visitor() {
                @Override
                public void record(TopicPartition tp, long offset) {
                    if (Arrays.binarySearch(suspects.get(tp), offset) >= 0) {
                        inLog.computeIfAbsent(tp, t -> LongStream.builder()).add(offset);
                    }
                }

                @Override
                public void done(TopicPartition tp, long firstBeyond) {}
            }, progress);
        }
        inLog.forEach((tp, b) -> found.put(tp, b.build().toArray()));
        return found;
    }
}
