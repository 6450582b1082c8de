package io.archiver.cli;

import io.archiver.archive.ArchiveFileReader;
import io.archiver.config.ArchiverConfig;
import io.archiver.config.ConfigException;
import io.archiver.job.JobLauncher;
import io.archiver.record.PayloadFormats;
import io.archiver.restore.PlanFindings;
import io.archiver.restore.RestoreJob;
import io.archiver.restore.groups.GroupPlacements;
import io.archiver.restore.plan.RestorePlan;
import io.archiver.restore.plan.RestoreSelection;
import io.archiver.restore.verify.RestoreVerifier;
import io.archiver.table.TableArchiveFiles;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.util.Map;
import java.util.concurrent.Callable;

import static io.archiver.config.JobOptions.JOB_NAME;

/**
 * Writes the archive back into Kafka, exactly once: the committed archive files of the selected topics, each
 * record to the same partition number of its target topic, up to a point in time. {@code --dry-run} prints the
 * plan and writes nothing. With {@code --consumer-groups}, the groups' archived offsets are then translated into
 * the restored topics and committed there ({@link GroupPlacements}); {@code --verify} proves a restore
 * ({@link RestoreVerifier}). The configuration is the archiver's: {@code sink.path} is the archive read,
 * {@code kafka.*} the cluster written to, {@code record.*} how payloads were archived.
 */
@Command(name = "restore", mixinStandardHelpOptions = true, description = "Write the archive back into Kafka, exactly once.")
final class RestoreCommand implements Callable<Integer> {

    @Option(names = "--topics", paramLabel = "T1,T2", description = "Archived topics to restore (default: every topic of the archive).")
    String topics;

    @Option(names = "--topic-pattern", paramLabel = "REGEX", description = "Archived topics matching this Java regular expression (with --topics: either).")
    String topicPattern;

    @Option(names = "--partitions", paramLabel = "P1,P2", description = "Partition numbers to restore (default: every archived partition).")
    String partitions;

    @Option(names = "--offsets", paramLabel = "FROM-TO", description = "Archived offsets to restore, inclusive: FROM-TO, FROM- or -TO (default: all).")
    String offsets;

    @Option(names = "--since", paramLabel = "INSTANT", description = "Restore records with a timestamp at or after this instant only.")
    String since;

    @Option(names = "--rename", paramLabel = "FROM=TO,...", description = "Restore an archived topic into another, e.g. orders=orders-restored.")
    String renames;

    @Option(names = "--until", paramLabel = "INSTANT", description = "Restore records with a timestamp up to this instant only, e.g. 2026-11-30T10:00:00Z.")
    String until;

    @Option(names = "--repartition", description = "Write each record to the partition its key hashes to (Kafka's default "
            + "partitioner), so the target may have fewer partitions; order is kept per key, and each record carries a header "
            + "naming its archived partition and offset.")
    boolean repartition;

    @Option(names = "--create-topics", description = "Create missing target topics with the archived topic's partition count and "
            + "settings as the archiver captured them (default: a missing target is an error).")
    boolean createTopics;

    @Option(names = "--consumer-groups", paramLabel = "G1,G2", description = "Consumer groups whose archived offsets are translated "
            + "into the restored topics and committed there (groups without active members only).")
    String groups;

    @Option(names = "--consumer-group-pattern", paramLabel = "REGEX", description = "As --consumer-groups, every archived group "
            + "matching this Java regular expression.")
    String groupPattern;

    @Option(names = "--verify", description = "Write nothing; compare the targets with the archive record by record, from where "
            + "this restore (same --topics, --rename, --until) began. Exit code 1 when a record differs, is missing or extra.")
    boolean verify;

    @Option(names = "--allow-stale-latest", description = "With a changed selection, write newly selected records of a key after newer"
            + " ones earlier runs wrote into a compacted target, although compaction then keeps the older value as the key's latest"
            + " (refused by default).")
    boolean allowStaleLatest;

    @Option(names = "--dry-run", description = "Print per partition the files, offsets, records and bytes it would write, and where "
            + "each consumer group would resume; write nothing.")
    boolean dryRun;

    @Mixin ConfigArgs config;

    @Spec CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (dryRun && verify) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--dry-run and --verify cannot be used together: --dry-run prints what a restore would write, --verify "
                            + "checks what restores wrote. Pass one of them.");
        }
        ArchiverConfig cfg = config.load(Map.of());
        RestoreSelection parsed = RestoreSelection.parse(topics, topicPattern, partitions, renames, offsets, since, until);
        RestoreSelection selection = repartition ? parsed.repartitioned() : parsed;
        Configuration settings = RestoreJob.settings(cfg);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(settings);
        boolean local = JobLauncher.isLocal(env);
        if (local) {
            JobLauncher.initializeFileSystems(settings);
        }
        RestorePlan plan = RestorePlan.of(TableArchiveFiles.of(cfg), selection, new ArchiveFileReader(PayloadFormats.of(cfg)));
        if (plan.partitions().isEmpty()) {
            throw new ConfigException("Nothing to restore: the archive under '" + cfg.sinkPath() + "' holds no committed files"
                    + (selection.topics().isEmpty() ? "" : " of " + selection.topics()) + ". Its topics: "
                    + RestorePlan.of(TableArchiveFiles.of(cfg), RestoreSelection.parse(null, null, null), new ArchiveFileReader(PayloadFormats.of(cfg)))
                            .partitions().keySet().stream().map(tp -> tp.topic()).distinct().toList() + ".");
        }
        if (verify) {
            return new RestoreVerifier(cfg, new ArchiveFileReader(PayloadFormats.of(cfg))).verify(plan, selection, out) ? 0 : 1;
        }
        plan.print(out, selection);
        GroupPlacements placements = groups == null && groupPattern == null
                ? GroupPlacements.none()
                : GroupPlacements.plan(cfg, plan, selection, groups, groupPattern, new ArchiveFileReader(PayloadFormats.of(cfg)));
        placements.print(out);
        if (dryRun) {
            PlanFindings.print(cfg, plan, selection, out);
            return 0;
        }
        plan.partitions().keySet().stream().map(tp -> tp.topic()).distinct().filter(t -> selection.target(t).equals(t)).forEach(t -> out.printf(
                "Note: '%s' is restored under its own name. If an archiver job archives it into %s, stop that job before the restore and "
                        + "archive the restored topic under a new sink.path afterwards: restored records get new offsets, and this "
                        + "archive's positions name the old ones.%n", t, cfg.sinkPath()));
        RestoreJob.build(env, cfg, plan, selection, createTopics, allowStaleLatest, out);
        String name = cfg.get(JOB_NAME) + " restore";
        if (local) {
            JobClient job = env.executeAsync(name);
            out.printf("Restore job %s runs in this JVM.%n", job.getJobID());
            out.flush();
            job.getJobExecutionResult().get();
            out.printf("Restore job %s finished: every planned file written.%n", job.getJobID());
        } else if (!env.getConfiguration().get(DeploymentOptions.ATTACHED) && !placements.isEmpty()) {
            env.execute(name);
            out.println("Submitted detached: consumer groups are placed once the restore has ended. Run the same restore with "
                    + "--consumer-groups again then (attached): it writes nothing twice and places the groups.");
            return 0;
        } else {
            env.execute(name);
        }
        return placements.commit(cfg, plan, selection, out).isEmpty() ? 0 : 1;
    }
}
