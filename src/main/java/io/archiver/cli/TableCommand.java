package io.archiver.cli;

import io.archiver.config.ArchiverConfig;
import io.archiver.config.TableOptions;
import io.archiver.fs.IoThreads;
import io.archiver.table.ArchiveCatalog;
import io.archiver.table.TableSettings;
import io.archiver.table.TableSync;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** The archive's Iceberg tables ({@code table.format: iceberg}): {@code register} appends the files the tables lack. */
@Command(name = "table", mixinStandardHelpOptions = true,
        description = "The archive's Iceberg tables (table.format: iceberg).",
        subcommands = TableCommand.Register.class)
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
