package io.archiver.local;

import io.archiver.config.ArchiverConfig;
import io.archiver.table.ArchiveCatalog;
import io.archiver.table.TablePositions;
import io.archiver.table.TableSettings;

import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;

import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code --iceberg-demo}: the topic archived into an Iceberg table too (a SQLite catalog in the work folder, the
 * table's metadata beside the archive), its snapshots printed with what their summaries carry, and a query of the
 * current snapshot's files with DuckDB, as an engine reading the table's file list would.
 */
final class IcebergDemo {

    private final Path catalog;

    IcebergDemo(Path workDir) {
        this.catalog = workDir.toAbsolutePath().resolve("catalog.db");
    }

    /** The table settings the demo archives with. */
    void addSettings(Map<String, String> settings) {
        settings.put("table.format", "iceberg");
        settings.put("table.catalog.uri", "jdbc:sqlite:" + catalog);
    }

    /** Waits until the topic's table holds {@code records}, then prints its snapshots and queries its files. */
    boolean show(PrintWriter out, ArchiverConfig config, String topic, long records, Path bucketDir, Instant deadline) throws Exception {
        try (ArchiveCatalog tables = ArchiveCatalog.open(TableSettings.of(config).orElseThrow())) {
            Table table = null;
            while (Instant.now().isBefore(deadline)) {
                if (tables.exists(topic)) {
                    table = tables.catalog().loadTable(tables.identifier(topic));
                    Snapshot current = table.currentSnapshot();
                    if (current != null && Long.parseLong(current.summary().getOrDefault("total-records", "0")) >= records) {
                        break;
                    }
                }
                TimeUnit.MILLISECONDS.sleep(500);
            }
            if (table == null || table.currentSnapshot() == null) {
                out.println("The table of '" + topic + "' got no snapshot in time.");
                return false;
            }
            out.printf("%nIceberg table %s in the SQLite catalog %s, partitioned by %s:%n", tables.identifier(topic), catalog,
                    table.spec().fields());
            out.printf("  %-20s %-10s %6s %8s  %s%n", "snapshot", "checkpoint", "files", "records", "next offsets");
            for (Snapshot s : table.snapshots()) {
                out.printf("  %-20d %-10s %6s %8s  %s%n", s.snapshotId(), s.summary().getOrDefault(TablePositions.CHECKPOINT, "-"),
                        s.summary().getOrDefault("added-data-files", "0"), s.summary().getOrDefault("added-records", "0"),
                        s.summary().getOrDefault(TablePositions.NEXT_OFFSETS, ""));
            }
            List<String> files = new ArrayList<>();
            try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
                for (FileScanTask t : tasks) {
                    URI uri = URI.create(t.file().location());
                    files.add("'" + bucketDir.resolve(uri.getPath().substring(1)) + "'");
                }
            }
            String sql = "SELECT \"partition\", count(*) AS records, min(\"offset\") AS first, max(\"offset\") AS last\n"
                    + "FROM read_parquet([<the " + files.size() + " files of snapshot " + table.currentSnapshot().snapshotId() + ">])\n"
                    + "GROUP BY ALL ORDER BY ALL";
            out.printf("%nDuckDB over the current snapshot's files:%n%s%n", sql.replaceAll("(?m)^", "  "));
            try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery(sql.replaceFirst("<[^>]*>", String.join(", ", files)))) {
                out.printf("  %-10s %8s %8s %8s%n", "partition", "records", "first", "last");
                while (rs.next()) {
                    out.printf("  %-10s %8d %8d %8d%n", rs.getString(1), rs.getLong(2), rs.getLong(3), rs.getLong(4));
                }
            }
            out.println("(Spark, Trino or PyIceberg read the same table through the catalog: " + catalog + ", catalog name '"
                    + config.get(io.archiver.config.TableOptions.TABLE_CATALOG_NAME) + "'.)");
            out.flush();
            return true;
        }
    }
}
