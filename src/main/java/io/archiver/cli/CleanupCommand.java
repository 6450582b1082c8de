package io.archiver.cli;

import io.archiver.archive.ArchiveFile;
import io.archiver.archive.IncompleteUploads;
import io.archiver.archive.UploadLifecycleRule;
import io.archiver.config.ArchiverConfig;
import io.archiver.position.PositionStore;

import org.apache.flink.core.fs.Path;
import org.apache.flink.util.TimeUtils;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * Removes what the audit calls orphaned: incomplete multipart uploads and hidden temporary objects in data
 * folders older than the orphan age. Dry run unless {@code --apply}. Committed data files are never touched.
 * Exits 0 when everything found was removed (or, in a dry run, listed), 1 when some of it could not be removed
 * (named on standard error; running it again retries them), 2 when it could not look (the archive unreachable).
 */
@Command(name = "cleanup", mixinStandardHelpOptions = true,
        description = "Abort orphaned multipart uploads and delete leftover temporary objects (dry run unless --apply).")
final class CleanupCommand implements Callable<Integer> {

    @Option(names = "--apply", description = "Really abort and delete (default: only list).")
    boolean apply;

    @Option(names = "--orphan-age",
            description = "Only what is older than this (default: sink.orphaned-uploads.abort-after, 24 h); a running job's in-progress "
                    + "uploads are younger than its checkpoint interval.")
    Duration orphanAge;

    @Option(names = "--install-lifecycle-rule",
            description = "Also add a lifecycle rule to the archive's bucket that aborts incomplete uploads under sink.path once they are "
                    + "as old as the orphan age (whole days, at least one), keeping the bucket's other rules (with --apply).")
    boolean installLifecycleRule;

    @Mixin ConfigArgs config;

    @Spec CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        ArchiverConfig cfg = config.load(Map.of());
        Duration age = orphanAge == null ? cfg.orphanAge() : orphanAge;
        Instant cutoff = Instant.now().minus(age);
        int failed = 0;
        int removed = 0;
        try (ArchiveAccess access = new ArchiveAccess(cfg)) {
            IncompleteUploads.Sorted sorted = IncompleteUploads.sort(access.uploads().list(cfg.sinkPath()),
                    PositionStore.listedKeys(new PositionStore(access.files().root()).read().all()), cutoff);
            for (IncompleteUploads.Upload u : sorted.cutShort()) {
                out.println("Keeping " + u + ": a position record lists it (a commit cut short, completed by the next start)");
            }
            List<IncompleteUploads.Upload> uploads = sorted.orphaned();
            List<ArchiveFile> leftovers = new ArrayList<>();
            for (ArchiveFile f : access.files().list().leftovers()) {
                if (f.modificationTime() < cutoff.toEpochMilli()) {
                    leftovers.add(f);
                }
            }
            String verb = apply ? "Aborting" : "Would abort";
            for (IncompleteUploads.Upload u : uploads) {
                out.println(verb + " " + u);
                if (apply) {
                    try {
                        access.uploads().abort(u);
                        removed++;
                    } catch (IOException | RuntimeException e) {
                        err.println("Could not abort " + u + ": " + e.getMessage());
                        failed++;
                    }
                }
            }
            verb = apply ? "Deleting" : "Would delete";
            for (ArchiveFile f : leftovers) {
                out.println(verb + " " + f.path());
                if (apply) {
                    try {
                        Path p = f.path();
                        p.getFileSystem().delete(p, false);
                        removed++;
                    } catch (IOException | RuntimeException e) {
                        err.println("Could not delete " + f.path() + ": " + e.getMessage());
                        failed++;
                    }
                }
            }
            if (apply) {
                out.printf("Removed %d of %d orphaned uploads and leftover objects older than %s.%s%n", removed,
                        uploads.size() + leftovers.size(), TimeUtils.formatWithHighestUnit(age), failed == 0 ? "" : " " + failed + " could not be removed: run again.");
            } else {
                out.printf("Found %d orphaned uploads and %d leftover objects older than %s. Run again with --apply to remove them.%n",
                        uploads.size(), leftovers.size(), TimeUtils.formatWithHighestUnit(age));
            }
            try (S3Client client = access.s3Client()) {
                if (client != null) {
                    failed += lifecycle(new UploadLifecycleRule(client), cfg.sinkPath(), age, out, err);
                }
            }
        } catch (Exception e) {
            err.println("Could not clean up: " + e.getMessage());
            err.flush();
            return AuditCommand.CANNOT_AUDIT;
        }
        out.flush();
        err.flush();
        return failed == 0 ? 0 : AuditCommand.FINDINGS;
    }

    /** Says what the bucket does with incomplete uploads, and installs the rule when asked; 1 when installing failed. */
    private int lifecycle(UploadLifecycleRule rule, String root, Duration age, PrintWriter out, PrintWriter err) {
        UploadLifecycleRule.Status status = rule.check(root);
        out.println(switch (status.kind()) {
            case COVERED -> "Lifecycle: rule '" + status.ruleId() + "' of the bucket aborts incomplete uploads under " + root + " "
                    + status.days() + " day(s) after they start.";
            case NOT_COVERED -> "Lifecycle: no rule of the bucket aborts incomplete uploads under " + root
                    + (installLifecycleRule ? "." : " (--install-lifecycle-rule adds one).");
            case UNKNOWN -> "Lifecycle: the store does not say whether a rule aborts incomplete uploads under " + root + " ("
                    + status.reason() + ").";
        });
        if (!installLifecycleRule) {
            return 0;
        }
        int days = UploadLifecycleRule.days(age);
        if (!apply) {
            out.printf("Would install a lifecycle rule aborting incomplete uploads under %s %d day(s) after they start. Run again with "
                    + "--apply to install it.%n", root, days);
            return 0;
        }
        try {
            out.printf("Installed lifecycle rule '%s': incomplete uploads under %s are aborted %d day(s) after they start.%n",
                    rule.install(root, age), root, days);
            return 0;
        } catch (S3Exception e) {
            err.println("Could not install the lifecycle rule: the store answered " + UploadLifecycleRule.describe(e)
                    + ". Without one the running job aborts orphaned uploads itself (sink.orphaned-uploads.abort-after).");
            return 1;
        }
    }
}
