package io.archiver.restore;

import io.archiver.archive.ArchiveVerifier;
import io.archiver.archive.IncompleteUploads;
import io.archiver.archive.PartitionReport;
import io.archiver.archive.VerificationReport;
import io.archiver.audit.ArchiveAuditor;
import io.archiver.audit.AuditReport;
import io.archiver.audit.KafkaInspector;
import io.archiver.audit.PartitionAudit;
import io.archiver.config.ArchiverConfig;
import io.archiver.kafka.TopicDescriptions;
import io.archiver.record.PayloadFormats;
import io.archiver.restore.plan.RestorePlan;
import io.archiver.restore.plan.RestoreSelection;
import io.archiver.table.TableArchiveFiles;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import static io.archiver.config.SourceOptions.KAFKA_GROUP_ID;

/**
 * The archive's holes and doubles inside a restore's selection, for {@code --dry-run}. Topics the cluster still
 * holds are audited against it (the committed records the archive lacks, as {@code audit} reports them); for
 * topics it no longer holds, the archive's own view: gaps between archived offsets (which transaction markers,
 * aborted and compacted records leave too, so only an audit tells) and offsets archived twice (which the
 * restore writes once).
 */
public final class PlanFindings {

    private static final int SHOWN = 5;

    private PlanFindings() {}

    public static void print(ArchiverConfig config, RestorePlan plan, RestoreSelection selection, PrintWriter out) throws Exception {
        TreeSet<String> topics = new TreeSet<>();
        plan.partitions().keySet().forEach(tp -> topics.add(tp.topic()));
        List<String> inKafka;
        try (Admin admin = Admin.create(config.kafkaClientProperties())) {
            inKafka = new ArrayList<>(TopicDescriptions.of(admin, topics, Duration.ofSeconds(30)).found().keySet());
        }
        PayloadFormats formats = PayloadFormats.of(config);
        Map<TopicPartition, PartitionAudit> audited = new HashMap<>();
        if (!inKafka.isEmpty()) {
            try (KafkaInspector kafka = new KafkaInspector(config.kafkaClientProperties())) {
                AuditReport report = new ArchiveAuditor(new ArchiveVerifier(formats, IncompleteUploads.NONE), kafka, Duration.ofDays(1))
                        .audit(TableArchiveFiles.of(config), config.deadLetterPath(), inKafka, config.get(KAFKA_GROUP_ID), false, line -> {});
                report.getPartitions().forEach(p -> audited.put(new TopicPartition(p.getTopic(), p.getPartition()), p));
            }
        }
        VerificationReport own = inKafka.size() == topics.size()
                ? null : new ArchiveVerifier(formats, IncompleteUploads.NONE).verify(TableArchiveFiles.of(config), false);
        out.println("Archive findings inside the selection:");
        int clean = 0;
        for (TopicPartition tp : plan.partitions().keySet()) {
            String line = audited.containsKey(tp)
                    ? audited(audited.get(tp), selection)
                    : own == null ? "" : unaudited(own.partition(tp.topic(), tp.partition()), selection);
            if (line.isEmpty()) {
                clean++;
            } else {
                out.printf("  %s: %s%n", tp, line);
            }
        }
        out.printf("  %d of %d partitions without findings%s%n", clean, plan.partitions().size(),
                inKafka.size() == topics.size() ? " (audited against Kafka)" : "");
        out.flush();
    }

    private static String audited(PartitionAudit p, RestoreSelection selection) {
        List<String> runs = new ArrayList<>();
        long missing = within(p.getMissingRanges(), selection, runs);
        long rejected = within(p.getDeadLetteredRanges(), selection, new ArrayList<>())
                + within(p.getSkippedRanges(), selection, new ArrayList<>());
        long doubles = p.duplicateFiles().keySet().stream().filter(o -> o >= selection.fromOffset() && o <= selection.toOffset()).count();
        List<String> parts = new ArrayList<>();
        if (missing > 0) {
            parts.add("committed records missing from the archive at offsets " + String.join(", ", runs)
                    + (runs.size() == SHOWN ? ", ..." : "") + " (at most " + missing + "; repair archives them while Kafka holds them)");
        }
        if (doubles > 0) {
            parts.add(doubles + " offsets archived twice (restored once)");
        }
        if (rejected > 0) {
            parts.add("at most " + rejected + " records errors.policy dead-lettered or skipped (not in the archive, not restored; `audit`"
                    + " lists them)");
        }
        return String.join("; ", parts);
    }

    /** Offsets of {@code ranges} within the selection's offsets (at most: holes count too), the first runs into {@code shown}. */
    private static long within(List<long[]> ranges, RestoreSelection selection, List<String> shown) {
        long count = 0;
        for (long[] run : ranges) {
            long first = Math.max(run[0], selection.fromOffset());
            long last = Math.min(run[1], selection.toOffset());
            if (first <= last) {
                count += last - first + 1;
                if (shown.size() < SHOWN) {
                    shown.add(first == last ? Long.toString(first) : first + ".." + last);
                }
            }
        }
        return count;
    }

    private static String unaudited(PartitionReport p, RestoreSelection selection) {
        if (p == null) {
            return "";
        }
        long gaps = p.holes().stream().filter(h -> h[1] - 1 >= selection.fromOffset() && h[0] <= selection.toOffset()).count();
        long doubles = p.duplicates().keySet().stream().filter(o -> o >= selection.fromOffset() && o <= selection.toOffset()).count();
        List<String> parts = new ArrayList<>();
        if (gaps > 0) {
            parts.add(gaps + " gaps between archived offsets (not audited: the topic is not in Kafka; transaction markers, aborted and "
                    + "compacted records leave such gaps too)");
        }
        if (doubles > 0) {
            parts.add(doubles + " offsets archived twice (restored once)");
        }
        return String.join("; ", parts);
    }
}
