package io.archiver.cli;

import io.archiver.fs.IoThreads;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import io.archiver.archive.RejectedRecords;
import io.archiver.audit.ArchiveAuditor;
import io.archiver.audit.ArchivedNotInLog;
import io.archiver.audit.AuditReport;
import io.archiver.audit.KafkaInspector;
import io.archiver.audit.PartitionAudit;
import io.archiver.audit.Rejections;
import io.archiver.config.ArchiverConfig;
import io.archiver.table.ArchiveCatalog;
import io.archiver.table.TableAgreement;
import io.archiver.table.TableCheck;
import io.archiver.table.TableSettings;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

import static io.archiver.config.SourceOptions.KAFKA_GROUP_ID;

/**
 * Compares the archive with Kafka and says whether it can be trusted. Exit code 0: clean; 1: findings
 * (gaps, duplicates, archived records Kafka does not hold, orphans); 2: could not audit. Progress goes to
 * standard error, the report to standard output.
 */
@Command(name = "audit", mixinStandardHelpOptions = true,
        description = "Compare the archive with what a read_committed consumer of Kafka reads, both ways: missing records, duplicates,"
                + " archived records Kafka does not hold (aborted transactions), orphaned uploads, lag. Exit 0 clean, 1 findings, 2 could not audit.")
final class AuditCommand implements Callable<Integer> {

    static final int FINDINGS = 1;
    private static final int EXAMPLES = 10;
    static final int CANNOT_AUDIT = 2;

    @Option(names = "--json", description = "Print the report as JSON.")
    boolean json;

    @Option(names = "--deep", description = "Read every record (default: Parquet files that are dense by their footer are not read).")
    boolean deep;

    @Option(names = "--orphan-age",
            description = "Incomplete uploads and temporary objects older than this are orphans; younger ones belong to a running job "
                    + "(default: sink.orphaned-uploads.abort-after, 24 h, after which the running job aborts them).")
    Duration orphanAge;

    @Mixin ConfigArgs config;

    @Spec CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        AuditReport report;
        try {
            ArchiverConfig cfg = config.load(Map.of());
            try (ArchiveAccess access = new ArchiveAccess(cfg); KafkaInspector kafka = access.kafka()) {
                report = audit(cfg, access, kafka, deep, orphanAge == null ? cfg.orphanAge() : orphanAge, spec.commandLine().getErr());
            }
        } catch (Exception e) {
            spec.commandLine().getErr().println("Could not audit: " + e.getMessage());
            return CANNOT_AUDIT;
        }
        if (json) {
            try {
                out.println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(report));
            } catch (Exception e) {
                spec.commandLine().getErr().println("Could not write JSON: " + e.getMessage());
                return CANNOT_AUDIT;
            }
        } else {
            printTable(out, report);
        }
        out.flush();
        return report.isClean() ? 0 : FINDINGS;
    }

    /** Audits the configured archive, progress lines to {@code err}. */
    static AuditReport audit(ArchiverConfig cfg, ArchiveAccess access, KafkaInspector kafka, boolean deep, Duration orphanAge,
            PrintWriter err) throws Exception {
        List<String> topics = cfg.topics().isEmpty() ? kafka.topicsMatching(cfg.topicPattern().orElseThrow()) : cfg.topics();
        AuditReport report = new ArchiveAuditor(access.verifier(), kafka, orphanAge)
                .audit(access.files(), cfg.deadLetterPath(), topics, cfg.get(KAFKA_GROUP_ID), deep, line -> {
                    err.println(line);
                    err.flush();
                });
        Optional<TableSettings> table = TableSettings.of(cfg);
        if (table.isEmpty()) {
            return report;
        }
        err.println("Comparing the topics' Iceberg tables with the archive's files ...");
        err.flush();
        ExecutorService pool = Executors.newFixedThreadPool(4, IoThreads.daemon("table-check"));
        try (ArchiveCatalog catalog = ArchiveCatalog.open(table.get())) {
            return report.withTables(TableCheck.compare(catalog, access.folders().list(), pool));
        } finally {
            pool.shutdownNow();
        }
    }

    static void printTable(PrintWriter out, AuditReport r) {
        out.printf("Audit of %s (%s)%n%n", r.getArchive(),
                r.isDeep() ? "deep: every record read" : "fast: dense Parquet files checked by their footer");
        out.printf("%-28s %6s %10s %10s %10s %8s %8s %8s %6s %8s %8s %10s %10s %8s %10s %10s%n", "topic-partition", "files", "records",
                "first", "last", "missing", "dead-l", "skipped", "dup", "not-in-k", "differs", "log-start", "stable", "lag", "group", "resume");
        for (PartitionAudit p : r.getPartitions()) {
            out.printf("%-28s %6d %10d %10d %10d %8d %8d %8d %6d %8d %8s %10d %10d %8d %10d %10s%n",
                    p.getTopic() + "-" + p.getPartition(), p.getFiles(), p.getRecords(), p.getFirstOffset(), p.getLastOffset(),
                    p.getMissing(), p.getDeadLettered(), p.getSkipped(), p.getDuplicatedOffsets(), p.getArchivedNotInKafka(),
                    r.isDeep() ? String.valueOf(p.getContentMismatches()) : "-", p.getLogStartOffset(),
                    p.getLastStableOffset(), p.getLag(), p.getGroupOffset(),
                    p.getResumeOffset() < 0 ? "-" : String.valueOf(p.getResumeOffset()));
        }
        out.println();
        for (PartitionAudit p : r.getPartitions()) {
            String tp = p.getTopic() + "-" + p.getPartition();
            if (p.getMissing() > 0) {
                out.printf("Missing from %s: %d committed records Kafka holds, at %s%n", tp, p.getMissing(), p.missing().describe(EXAMPLES));
            }
            printRejections(out, tp, p.rejections(RejectedRecords.Kind.DEAD_LETTERED), "Dead-lettered",
                    "not archived, kept whole in the dead-letter place");
            printRejections(out, tp, p.rejections(RejectedRecords.Kind.SKIPPED), "Skipped", "not archived, their positions in the skip log");
            printRejections(out, tp, p.rejections(RejectedRecords.Kind.ERASED), "Erased", "on request, their positions in the erasure log");
            if (p.getErasedStillArchived() > 0) {
                out.printf("Erasure not finished, %s: %d records the erasure log names are still archived: run erase --apply again%n",
                        tp, p.getErasedStillArchived());
            }
            if (p.getRejectedSinceArchived() > 0) {
                out.printf("Re-archived, %s: %d records once dead-lettered or skipped are archived now (their dead letters are kept as"
                        + " history)%n", tp, p.getRejectedSinceArchived());
            }
            if (p.getContentMismatches() > 0) {
                out.printf("Content differs from Kafka, %s: %d archived records hold another key, value, headers or timestamp than Kafka's"
                        + " record at their offset (%s), at %s%n", tp, p.getContentMismatches(), p.getContentMismatchFields().entrySet().stream()
                                .map(e -> e.getKey() + " in " + e.getValue()).collect(Collectors.joining(", ")),
                        String.join(", ", p.getContentMismatchExamples())
                                + (p.getContentMismatches() > p.getContentMismatchExamples().size() ? ", ..." : ""));
            }
            ArchivedNotInLog n = p.notInLog();
            if (n.aborted().count() > 0) {
                out.printf("Archived but not in Kafka, %s: %d records of ABORTED transactions, at %s%n",
                        tp, n.aborted().count(), n.aborted().describe(EXAMPLES));
            }
            if (n.open().count() > 0) {
                out.printf("Archived but not in Kafka, %s: %d records of transactions still open (at or after the last stable offset %d), at %s%n",
                        tp, n.open().count(), p.getLastStableOffset(), n.open().describe(EXAMPLES));
            }
            if (p.getTruncatedRecords() > 0) {
                out.printf("Archived but no longer in Kafka, %s: %d records Kafka TRUNCATED from its log after they were archived (kept;"
                        + " what Kafka wrote at their offsets since is in the dead letters or the skip log, or beyond its log end), at %s%n",
                        tp, p.getTruncatedRecords(), describe(p.getTruncatedRanges()));
            }
            if (n.absent().count() > 0) {
                out.printf("Archived but not in Kafka, %s: %d records at offsets where Kafka holds no record (never existed, or"
                        + " another topic's data), at %s%n", tp, n.absent().count(), n.absent().describe(EXAMPLES));
            }
            if (n.compacted() > 0) {
                out.printf("Compacted since archived, %s: %d archived records that compaction has since removed from Kafka (kept as history, not a finding)%n",
                        tp, n.compacted());
            }
            if (p.getBeforeLogStart() > 0) {
                out.printf("Before the log start, %s: %d archived records Kafka has deleted by retention (not compared)%n", tp, p.getBeforeLogStart());
            }
        }
        for (PartitionAudit p : r.getPartitions()) {
            if (p.getOffsetsBeyondPosition() > 0) {
                out.printf("Beyond the position record of %s-%d: offsets %d..%d are archived but not covered by committed state"
                        + " (another job wrote them, or they were copied in)%n", p.getTopic(), p.getPartition(), p.getResumeOffset(), p.getLastOffset());
            } else if (p.getResumeOffset() < 0 && p.getFiles() > 0) {
                out.printf("No position record for %s-%d (archived by a version before 0.2): a start without state begins at kafka.start%n",
                        p.getTopic(), p.getPartition());
            }
        }
        out.printf("Commits cut short (completed by the next start without state, not orphans): %d%n", r.getCutShortCommits().size());
        r.getCutShortCommits().forEach(u -> out.println("  " + u));
        out.printf("Orphaned multipart uploads: %d%n", r.getOrphanedUploads().size());
        r.getOrphanedUploads().forEach(u -> out.println("  " + u));
        out.printf("Leftover temporary objects: %d%n", r.getLeftovers().size());
        r.getLeftovers().forEach(f -> out.println("  " + f));
        out.printf("In progress (younger than the orphan age): %d%n", r.getInProgressUploads());
        for (TableAgreement t : r.getTables()) {
            out.printf("Iceberg table %s: %s, %d committed after its last snapshot's offsets (the next one's)%n", t.table(),
                    t.snapshot() < 0 ? "no snapshot" : "snapshot " + t.snapshot() + " lists " + t.files() + " files", t.inFlight());
            if (!t.lacking().isEmpty()) {
                out.printf("  lacks %d files below the offsets it holds (`table register` appends them): %s%n",
                        t.lacking().size(), examples(t.lacking()));
            }
            if (t.replaced() + t.abandoned() > 0) {
                out.printf("  %d files replaced by a compaction and %d outputs of a compaction cut short wait in the folders "
                        + "(`table expire` removes them; readers go through the table)%n", t.replaced(), t.abandoned());
            }
            if (!t.extra().isEmpty()) {
                out.printf("  lists %d files the archive does not hold (deleted behind the table's back): %s%n", t.extra().size(),
                        examples(t.extra()));
            }
        }
        if (r.getDeadLettered() + r.getSkipped() > 0) {
            out.println("Dead-lettered and skipped records are accounted for, not missing. To archive them once their format or schema"
                    + " is fixed: `repair --rearchive-rejected --apply` (docs/audit.md).");
        }
        if (r.isClean()) {
            out.printf("Verdict: CLEAN. Every record a read_committed consumer reads between the first and last archived or rejected"
                    + " offset of each partition is archived exactly once (%d records) or was rejected by errors.policy (%d dead-lettered,"
                    + " %d skipped)%s, the archive holds nothing else%s, and nothing is left orphaned.%n",
                    r.getRecords(), r.getDeadLettered(), r.getSkipped(), r.getErased() > 0 ? " or erased on request (" + r.getErased() + ")" : "",
                    r.isDeep() ? ", every archived record's content equals Kafka's" : "");
        } else {
            out.printf("Verdict: FINDINGS. %d missing, %d duplicated, %d archived but not in Kafka, %d with content differing from Kafka,"
                            + " %d beyond the position records, %d erased but still archived, %d orphaned uploads, %d leftover objects (%d"
                            + " dead-lettered, %d skipped and %d erased are accounted for)%s. Run `cleanup` for orphans; see docs/audit.md for"
                            + " the others.%n",
                    r.getMissing(), r.getDuplicatedOffsets(), r.getArchivedNotInKafka(), r.getContentMismatches(),
                    r.getOffsetsBeyondPosition(), r.getErasedStillArchived(), r.getOrphanedUploads().size(), r.getLeftovers().size(),
                    r.getDeadLettered(), r.getSkipped(), r.getErased(), r.getTables().stream().anyMatch(t -> !t.isClean())
                            ? ", " + r.getTables().stream().filter(t -> !t.isClean()).count() + " Iceberg tables out of step with the archive" : "");
        }
    }

    private static String describe(List<long[]> runs) {
        return runs.stream().limit(EXAMPLES).map(r -> r[0] == r[1] ? String.valueOf(r[0]) : r[0] + ".." + r[1])
                .collect(Collectors.joining(", ")) + (runs.size() > EXAMPLES ? ", ..." : "");
    }

    private static String examples(List<String> files) {
        return String.join(", ", files.subList(0, Math.min(EXAMPLES, files.size()))) + (files.size() > EXAMPLES ? ", ..." : "");
    }

    private static void printRejections(PrintWriter out, String tp, Rejections r, String kind, String where) {
        if (r.count() > 0) {
            out.printf("%s, %s: %d records (%s), at %s; reasons: %s%n", kind, tp, r.count(), where, r.offsets().describe(EXAMPLES),
                    r.reasons().entrySet().stream().map(e -> e.getValue() + " × " + e.getKey()).collect(Collectors.joining("; ")));
        }
    }
}
