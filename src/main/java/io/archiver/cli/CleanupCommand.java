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
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        ArchiverConfig cfg = config.load(Map.of());
        Duration age = orphanAge == null ? cfg.orphanAge() : orphanAge;
        Instant cutoff = Instant.now().minus(age);
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
                    access.uploads().abort(u);
                }
            }
            verb = apply ? "Deleting" : "Would delete";
            for (ArchiveFile f : leftovers) {
                out.println(verb + " " + f.path());
                if (apply) {
                    Path p = f.path();
                    p.getFileSystem().delete(p, false);
                }
            }
            out.printf("%s %d orphaned uploads and %d leftover objects older than %s.%s%n",
                    apply ? "Removed" : "Found", uploads.size(), leftovers.size(), age,
                    apply ? "" : " Run again with --apply to remove them.");
            out.flush();
        }
        return 0;
    }
}
