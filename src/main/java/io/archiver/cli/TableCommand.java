package io.archiver.cli;

import io.archiver.archive.ArchiveListing;
import io.archiver.archive.ArchiveRoot;
import io.archiver.config.ArchiverConfig;
import io.archiver.config.TableOptions;
import io.archiver.fs.IoThreads;
import io.archiver.table.ArchiveCatalog;
import io.archiver.table.ArchiveTable;
import io.archiver.table.TableCompaction;
import io.archiver.table.TableExpiry;
import io.archiver.table.TableSettings;
import io.archiver.table.TableSync;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The archive's Iceberg tables ({@code table.format: iceberg}): {@code register} appends the files the tables lack,
 * {@code compact} concatenates the small files of closed record-time folders, {@code expire} drops old snapshots and the
 * files only they reference.
 */
@Command(name = "table", mixinStandardHelpOptions = true,
        description = "The archive's Iceberg tables (table.format: iceberg).",
        subcommands = {TableCommand.Register.class, TableCommand.Compact.class, TableCommand.Expire.class})
final class TableCommand {

    /**
     * Appends every committed Parquet file of the archive that its topic's table does not hold: an archive written
     * before it had a table. Idempotent. Exits 0 when done, 2 when the configuration names no table or the catalog or
     * archive cannot be reached.
     */
    @Command(name = "register", mixinStandardHelpOptions = true,
            description = "Append to the topics' tables every committed file of the archive they do not hold (an archive written "
                    + "before table.format: iceberg); run again, it appends nothing.")
    static final class Register implements Callable<Integer> {

        @Mixin ConfigArgs config;

        @Spec CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            ArchiverConfig cfg = config.load(Map.of());
            Optional<TableSettings> settings = TableSettings.of(cfg);
            if (settings.isEmpty()) {
                err.println("No table to register the archive in: set " + TableOptions.TABLE_FORMAT.key() + ": iceberg and "
                        + TableOptions.TABLE_CATALOG_URI.key() + " in the configuration.");
                return ArchiverCli.CONFIG_ERROR;
            }
            ExecutorService pool = Executors.newFixedThreadPool(8, IoThreads.daemon("table-register"));
            try (ArchiveAccess access = new ArchiveAccess(cfg);
                    ArchiveCatalog catalog = ArchiveCatalog.open(settings.get())) {
                int appended = TableSync.register(catalog, access.files(), pool);
                out.println("Registered the archive " + cfg.sinkPath() + " in " + settings.get() + ": " + appended
                        + " files appended" + (appended == 0 ? " (the tables held every file)" : ""));
                return 0;
            } catch (IOException | RuntimeException e) {
                err.println("error: Cannot register the archive " + cfg.sinkPath() + " in the " + settings.get() + ": " + messages(e));
                return ArchiverCli.CONFIG_ERROR;
            } finally {
                pool.shutdownNow();
            }
        }
    }

    /**
     * Concatenates the small files of every closed record-time folder of the topics' tables into files of the target
     * size, one replace snapshot per table, while the job keeps archiving. Exits 0 when every table is done, 1 when one
     * failed (the others are still compacted), 2 when the configuration names no table or the catalog cannot be reached.
     */
    @Command(name = "compact", mixinStandardHelpOptions = true,
            description = "Concatenate the small files of each closed record-time folder (table.compact.closed-after) into files of "
                    + "at most table.compact.target-file-size, the records' bytes as they were, in one snapshot per table; readers "
                    + "through the table read the new files, `table expire` removes the old ones.")
    static final class Compact implements Callable<Integer> {

        @Mixin ConfigArgs config;

        @Spec CommandSpec spec;

        @Option(names = "--dry-run", description = "Only say what would be compacted.")
        boolean dryRun;

        @Override
        public Integer call() {
            return eachTable(config, spec, "compact", (cfg, table, folders, pool) -> {
                TableCompaction.Result r = TableCompaction.compact(table, TableCompaction.namedByPositions(ArchiveRoot.of(cfg)),
                        new TableCompaction.Settings(cfg.get(TableOptions.TABLE_COMPACT_TARGET_FILE_SIZE).getBytes(),
                                cfg.get(TableOptions.TABLE_COMPACT_CLOSED_AFTER)),
                        Instant.now(), dryRun, pool);
                if (r.filesReplaced() == 0) {
                    return r.table() + ": nothing to compact (no record-time folder closed " + cfg.get(TableOptions.TABLE_COMPACT_CLOSED_AFTER)
                            + " ago holds two files smaller than " + cfg.get(TableOptions.TABLE_COMPACT_TARGET_FILE_SIZE) + ")";
                }
                return String.format("%s: %s %d files (%d records, %d bytes) of %d folders into %d%s", r.table(),
                        dryRun ? "would compact" : "compacted", r.filesReplaced(), r.records(), r.bytes(), r.folders(), r.filesWritten(),
                        r.snapshot() < 0 ? "" : ", snapshot " + r.snapshot());
            });
        }
    }

    /**
     * Drops the tables' snapshots older than {@code table.expire.older-than} (keeping the newest
     * {@code table.expire.retain-last}) and deletes the files only they reference, and the outputs of compactions cut
     * short. Exit codes as {@code compact}.
     */
    @Command(name = "expire", mixinStandardHelpOptions = true,
            description = "Drop the tables' snapshots older than table.expire.older-than (the newest table.expire.retain-last stay) and "
                    + "delete the files only they reference (those compactions replaced) and the outputs of cut-short compactions.")
    static final class Expire implements Callable<Integer> {

        @Mixin ConfigArgs config;

        @Spec CommandSpec spec;

        @Option(names = "--dry-run", description = "Only say what would be expired.")
        boolean dryRun;

        @Override
        public Integer call() {
            return eachTable(config, spec, "expire", (cfg, table, folders, pool) -> {
                TableExpiry.Result r = TableExpiry.expire(table, cfg.get(TableOptions.TABLE_EXPIRE_OLDER_THAN),
                        cfg.get(TableOptions.TABLE_EXPIRE_RETAIN_LAST), Instant.now(), folders.get(), dryRun, pool);
                return String.format("%s: %s %d snapshots, %d data files only they referenced, %d outputs of cut-short compactions, "
                        + "%d orphaned metadata files", r.table(), dryRun ? "would expire" : "expired", r.snapshotsExpired(),
                        r.dataFilesDeleted(), r.abandonedDeleted(), r.orphanedMetadataDeleted());
            });
        }
    }

    /** What a maintenance command does to one table; returns the line it prints. */
    @FunctionalInterface
    private interface TableTask {
        String run(ArchiverConfig config, ArchiveTable table, Folders folders, ExecutorService pool) throws IOException;
    }

    /** The archive's folders as listed, once, when a task asks. */
    private interface Folders {
        ArchiveListing get() throws IOException;
    }

    /** Runs {@code task} on the table of every topic of the archive that has one. */
    private static int eachTable(ConfigArgs config, CommandSpec spec, String verb, TableTask task) {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        ArchiverConfig cfg = config.load(Map.of());
        Optional<TableSettings> settings = TableSettings.of(cfg);
        if (settings.isEmpty()) {
            err.println("No table to " + verb + ": set " + TableOptions.TABLE_FORMAT.key() + ": iceberg and "
                    + TableOptions.TABLE_CATALOG_URI.key() + " in the configuration.");
            return ArchiverCli.CONFIG_ERROR;
        }
        ExecutorService pool = Executors.newFixedThreadPool(8, IoThreads.daemon("table-" + verb));
        int failed = 0;
        try (ArchiveAccess access = new ArchiveAccess(cfg);
                ArchiveCatalog catalog = ArchiveCatalog.open(settings.get())) {
            ArchiveListing[] listed = new ArchiveListing[1];
            Folders folders = () -> listed[0] == null ? (listed[0] = access.folders().list()) : listed[0];
            List<String> topics = ArchiveRoot.of(cfg).topics();
            if (topics.isEmpty()) {
                out.println("No topic folders in " + cfg.sinkPath() + ": nothing to " + verb + ".");
            }
            for (String topic : topics) {
                if (!catalog.exists(topic)) {
                    out.println(catalog.identifier(topic) + ": no table yet (the job creates it at its first commit; "
                            + "`table register` registers an archive written without tables)");
                    continue;
                }
                try {
                    out.println(task.run(cfg, catalog.table(topic), folders, pool));
                } catch (IOException | RuntimeException e) {
                    failed++;
                    err.println("error: " + catalog.identifier(topic) + ": " + messages(e));
                }
                out.flush();
            }
            return failed == 0 ? 0 : 1;
        } catch (IOException | RuntimeException e) {
            err.println("error: Cannot " + verb + " the tables of " + cfg.sinkPath() + " in the " + settings.get() + ": " + messages(e));
            return ArchiverCli.CONFIG_ERROR;
        } finally {
            pool.shutdownNow();
        }
    }

    /** The messages of {@code e} and its causes, each once. */
    static String messages(Throwable e) {
        StringBuilder sb = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
            if (sb.indexOf(m) < 0) {
                sb.append(sb.length() == 0 ? "" : ": ").append(m);
            }
        }
        return sb.toString();
    }
}
