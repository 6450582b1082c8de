package io.archiver.local;

import io.archiver.archive.ArchiveRoot;
import io.archiver.config.ArchiverConfig;
import io.archiver.config.TableOptions;
import io.archiver.fs.IoThreads;
import io.archiver.table.ArchiveCatalog;
import io.archiver.table.ArchiveTable;
import io.archiver.table.TableCompaction;
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
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * {@code --iceberg-demo}: the topic archived into an Iceberg table too (a SQLite catalog in the work folder, the
 * table's metadata beside the archive, hour folders). The records come in three rounds: a third with timestamps over
 * three hours of yesterday, a third of late records of the same hours, a third of now; so yesterday's hour folders
 * hold two small files each when {@code table compact} runs next to the job and concatenates them. Prints the
 * snapshots with what their summaries carry, the compaction, and a query of the current snapshot's files with DuckDB,
 * as an engine reading the table's file list would.
 */
final class IcebergDemo {

    private static final Duration SPREAD = Duration.ofHours(3);

    private final Path catalog;
    private final long yesterday = Instant.now().truncatedTo(ChronoUnit.DAYS).minus(Duration.ofHours(15)).toEpochMilli();

    IcebergDemo(Path workDir) {
        this.catalog = workDir.toAbsolutePath().resolve("catalog.db");
    }

    /** The table settings the demo archives with. */
    void addSettings(Map<String, String> settings) {
        settings.put("sink.time-partitioning", "hour");
        settings.put("table.format", "iceberg");
        settings.put("table.catalog.uri", "jdbc:sqlite:" + catalog);
    }

    /** The first round: a third of {@code records}, their timestamps over three hours of yesterday. */
    void produceFirst(Properties client, String topic, int records) throws Exception {
        int third = records / 3;
        SampleData.produce(client, topic, 0, third, i -> yesterday + SPREAD.toMillis() * i / third);
    }

    /**
     * Waits for each round in the table and produces the next, then compacts the table next to the running job, prints
     * its snapshots and queries its files.
     */
    boolean show(PrintWriter out, ArchiverConfig config, Properties client, String topic, int records, Path bucketDir, Instant deadline)
            throws Exception {
        int third = records / 3;
        try (ArchiveCatalog tables = ArchiveCatalog.open(TableSettings.of(config).orElseThrow())) {
            if (!awaitRecords(tables, topic, third, deadline)) {
                out.println("The table of '" + topic + "' did not get the first round in time.");
                return false;
            }
            SampleData.produce(client, topic, third, third, i -> yesterday + SPREAD.toMillis() * (i - third) / third);
            if (!awaitRecords(tables, topic, 2L * third, deadline)) {
                out.println("The table of '" + topic + "' did not get the late records in time.");
                return false;
            }
            SampleData.produce(client, topic, 2 * third, records - 2 * third, null);
            if (!awaitRecords(tables, topic, records, deadline)) {
                out.println("The table of '" + topic + "' did not get every record in time.");
                return false;
            }
            out.printf("%nProduced in three rounds: %d records of yesterday %s..+3 h, %d late records of the same hours, %d of now.%n",
                    third, Instant.ofEpochMilli(yesterday), third, records - 2 * third);
            Table table = tables.catalog().loadTable(tables.identifier(topic));
            int before = files(table).size();
            ArchiveTable archived = tables.table(topic);
            ExecutorService pool = Executors.newFixedThreadPool(2, IoThreads.daemon("demo-compact"));
            TableCompaction.Result compacted;
            try {
                compacted = TableCompaction.compact(archived, TableCompaction.namedByPositions(ArchiveRoot.of(config)),
                        new TableCompaction.Settings(config.get(TableOptions.TABLE_COMPACT_TARGET_FILE_SIZE).getBytes(),
                                config.get(TableOptions.TABLE_COMPACT_CLOSED_AFTER)), Instant.now(), false, pool);
            } finally {
                pool.shutdownNow();
            }
            table.refresh();
            out.printf("%nIceberg table %s in the SQLite catalog %s, partitioned by %s:%n", tables.identifier(topic), catalog,
                    table.spec().fields());
            out.printf("  %-20s %-8s %-10s %6s %8s  %s%n", "snapshot", "job", "checkpoint", "files", "records", "next offsets");
            for (Snapshot s : table.snapshots()) {
                String job = s.summary().getOrDefault(TablePositions.JOB, "-");
                out.printf("  %-20d %-8s %-10s %6s %8s  %s%n", s.snapshotId(), job.length() > 8 ? job.substring(0, 8) : job,
                        s.summary().getOrDefault(TablePositions.CHECKPOINT, "-"),
                        "+" + s.summary().getOrDefault("added-data-files", "0") + "-" + s.summary().getOrDefault("deleted-data-files", "0"),
                        s.summary().getOrDefault("added-records", "0"), s.summary().getOrDefault(TablePositions.NEXT_OFFSETS, ""));
            }
            List<String> files = files(table);
            out.printf("%n`table compact` next to the running job: %d files of %d closed hour folders concatenated into %d "
                    + "(%d records, their bytes as they were); the table lists %d files instead of %d. The replaced files stay "
                    + "in the folders, never read through the table, until `table expire`.%n", compacted.filesReplaced(),
                    compacted.folders(), compacted.filesWritten(), compacted.records(), files.size(), before);
            List<String> local = new ArrayList<>();
            files.forEach(f -> local.add("'" + bucketDir.resolve(URI.create(f).getPath().substring(1)) + "'"));
            String sql = "SELECT \"partition\", count(*) AS records, min(\"offset\") AS first, max(\"offset\") AS last\n"
                    + "FROM read_parquet([<the " + files.size() + " files of snapshot " + table.currentSnapshot().snapshotId() + ">])\n"
                    + "GROUP BY ALL ORDER BY ALL";
            out.printf("%nDuckDB over the current snapshot's files:%n%s%n", sql.replaceAll("(?m)^", "  "));
            try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery(sql.replaceFirst("<[^>]*>", String.join(", ", local)))) {
                out.printf("  %-10s %8s %8s %8s%n", "partition", "records", "first", "last");
                while (rs.next()) {
                    out.printf("  %-10s %8d %8d %8d%n", rs.getString(1), rs.getLong(2), rs.getLong(3), rs.getLong(4));
                }
            }
            out.println("(Spark, Trino or PyIceberg read the same table through the catalog: " + catalog + ", catalog name '"
                    + config.get(TableOptions.TABLE_CATALOG_NAME) + "'.)");
            out.flush();
            return true;
        }
    }

    /** Waits until the topic's table holds {@code records}. */
    private static boolean awaitRecords(ArchiveCatalog tables, String topic, long records, Instant deadline) throws InterruptedException {
        while (Instant.now().isBefore(deadline)) {
            if (tables.exists(topic)) {
                Snapshot current = tables.catalog().loadTable(tables.identifier(topic)).currentSnapshot();
                if (current != null && Long.parseLong(current.summary().getOrDefault("total-records", "0")) >= records) {
                    return true;
                }
            }
            TimeUnit.MILLISECONDS.sleep(200);
        }
        return false;
    }

    /** The files of the table's current snapshot. */
    private static List<String> files(Table table) throws Exception {
        List<String> files = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            tasks.forEach(t -> files.add(t.file().location()));
        }
        return files;
    }
}
