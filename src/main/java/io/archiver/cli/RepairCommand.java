package io.archiver.cli;

import io.archiver.archive.ArchiveFile;
import io.archiver.audit.AuditReport;
import io.archiver.audit.KafkaInspector;
import io.archiver.config.ArchiverConfig;
import io.archiver.fencing.ArchiveLease;
import io.archiver.position.PositionStore;
import io.archiver.repair.ArchiveRepairer;
import io.archiver.repair.RepairPlan;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;

/**
 * Repairs what {@code audit} finds, in the archive a job may be writing to: archives missing records from
 * Kafka, drops the extra copies of duplicated records and archived records no committed reader sees. Dry run
 * unless {@code --apply}; after applying, audits again. Exit code 0: clean afterwards (or nothing to do);
 * 1: findings remain; 2: could not repair.
 */
@Command(name = "repair", mixinStandardHelpOptions = true,
        description = "Archive the records audit finds missing (while Kafka holds them) and drop duplicated and aborted records,"
                + " next to a running job (dry run unless --apply); dead-lettered and skipped records only with --rearchive-rejected."
                + " Exit 0 clean, 1 findings remain, 2 could not repair.")
final class RepairCommand implements Callable<Integer> {

    @Option(names = "--apply", description = "Really write and delete files (default: print the plan).")
    boolean apply;

    @Option(names = "--deep", description = "Audit by reading every archived record (default: Parquet files dense by their footer are not read).")
    boolean deep;

    @Option(names = "--rearchive-rejected",
            description = "Also archive the dead-lettered and skipped records (read from Kafka while it holds them) that are valid in the"
                    + " configured formats now, once a schema or format option is fixed; the others stay where they are.")
    boolean rearchiveRejected;

    @Mixin ConfigArgs config;

    @Spec CommandSpec spec;

    /**
     * Takes the archive's lease unless a job renews it meanwhile (waiting at most the lease timeout, as a job
     * that starts does): true when the repair holds the archive alone.
     */
    private static boolean takeLease(ArchiveLease lease, PrintWriter out) throws Exception {
        lease.liveHolder().ifPresent(holder -> {
            out.println("The archive's lease was renewed lately by " + holder + "; waiting up to the lease timeout to see whether it"
                    + " is still running.");
            out.flush();
        });
        try {
            lease.acquire();
            return true;
        } catch (ArchiveLease.LeaseException running) {
            return false;
        }
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            ArchiverConfig cfg = config.load(Map.of());
            try (ArchiveAccess access = new ArchiveAccess(cfg); KafkaInspector kafka = access.kafka()) {
                ArchiveLease lease = new ArchiveLease(access.files().root(), "repair-" + UUID.randomUUID(), "repair", cfg.leaseTimeout());
                Optional<String> renewing = lease.liveHolder();
                boolean alone = apply ? takeLease(lease, out) : renewing.isEmpty();
                try {
                    if (apply || renewing.isEmpty()) {
                        out.println(alone ? "No job writes this archive: files of the latest commits may be rewritten too."
                                : "A job writes this archive: repairing alongside it; files of its latest commits are left alone.");
                    } else {
                        out.println("The archive's lease was renewed lately by " + renewing.get() + ". The plan below leaves the files"
                                + " of the latest commits alone, as a repair next to a running job does; --apply waits up to the lease"
                                + " timeout to see whether that job still runs.");
                    }
                    // uploads younger than a day belong to the running job: not the repair's business
                    AuditReport before = AuditCommand.audit(cfg, access, kafka, deep, cfg.orphanAge(), err);
                    Set<String> listed = alone ? Set.of() : PositionStore.listedKeys(new PositionStore(access.files().root()).read().all());
                    List<ArchiveFile> files = access.files().list().committed();
                    Map<String, Long> modified = new HashMap<>();
                    files.forEach(f -> modified.put(f.path().toString(), f.modificationTime()));
                    RepairPlan plan = RepairPlan.of(before, listed, modified, rearchiveRejected);
                    plan.print(out);
                    if (plan.isEmpty()) {
                        out.println("Nothing to repair: no missing, duplicated or aborted records"
                                + (rearchiveRejected ? ", nothing dead-lettered or skipped." : "."));
                        out.flush();
                        return before.isClean() ? 0 : AuditCommand.FINDINGS;
                    }
                    if (!apply) {
                        out.println("Run again with --apply to repair.");
                        out.flush();
                        return AuditCommand.FINDINGS;
                    }
                    new ArchiveRepairer(cfg, out).apply(plan, files, alone ? lease : null);
                } finally {
                    if (alone && apply) {
                        lease.release();
                    }
                    lease.close();
                }
                AuditReport after = AuditCommand.audit(cfg, access, kafka, deep, cfg.orphanAge(), err);
                out.printf("Audit after the repair: %s (%d missing, %d duplicated, %d archived but not in Kafka; %d dead-lettered, %d skipped)%n",
                        after.isClean() ? "CLEAN" : "FINDINGS", after.getMissing(), after.getDuplicatedOffsets(), after.getArchivedNotInKafka(),
                        after.getDeadLettered(), after.getSkipped());
                out.flush();
                return after.isClean() ? 0 : AuditCommand.FINDINGS;
            }
        } catch (Exception e) {
            err.println("Could not repair: " + e.getMessage());
            err.flush();
            return AuditCommand.CANNOT_AUDIT;
        }
    }
}
