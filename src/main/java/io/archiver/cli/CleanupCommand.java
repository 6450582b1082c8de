package io.archiver.cli;

import io.archiver.archive.ArchiveFile;
import io.archiver.archive.IncompleteUploads;
import io.archiver.config.ArchiverConfig;
import io.archiver.position.PositionStore;

import org.apache.flink.core.fs.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

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
                        uploads.size() + leftovers.size(), age, failed == 0 ? "" : " " + failed + " could not be removed: run again.");
            } else {
                out.printf("Found %d orphaned uploads and %d leftover objects older than %s. Run again with --apply to remove them.%n",
                        uploads.size(), leftovers.size(), age);
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
}
