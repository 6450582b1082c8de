package io.archiver.testutils;

import io.archiver.archive.ArchiveFile;
import io.archiver.config.ArchiverConfig;
import io.archiver.record.ArchiveRecord;
import io.archiver.table.ArchiveCatalog;
import io.archiver.table.TableArchiveFiles;
import io.archiver.table.TableSettings;

import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.Path;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a topic's Iceberg table holds, read the ways its readers read it: the current snapshot's files (against the
 * archive's folders), its rows through Iceberg's own reader (iceberg-data) and through DuckDB over the snapshot's
 * files; and the assertion that it equals the read_committed truth, record by record, both ways.
 */
public final class TableContents {

    private TableContents() {}

    /** The settings of a job with two subtasks, hour folders and a table per topic in a SQLite catalog at {@code catalog}. */
    public static Map<String, String> jobSettings(java.nio.file.Path catalog, io.archiver.config.SinkLayout layout) {
        return Map.of(
                "parallelism", "2",
                "sink.layout", layout.configName(),
                "sink.time-partitioning", "hour",
                "table.format", "iceberg",
                "table.catalog.uri", "jdbc:sqlite:" + catalog);
    }

    /** The topic's table as the catalog of {@code config} has it now. */
    public static Table table(ArchiverConfig config, String topic) throws Exception {
        try (ArchiveCatalog catalog = ArchiveCatalog.open(TableSettings.of(config).orElseThrow())) {
            return catalog.catalog().loadTable(catalog.identifier(topic));
        }
    }

    /** The records the table's current snapshot holds (0 before its first). */
    public static long records(ArchiverConfig config, String topic) throws Exception {
        try (ArchiveCatalog catalog = ArchiveCatalog.open(TableSettings.of(config).orElseThrow())) {
            if (!catalog.exists(topic)) {
                return 0;
            }
            Snapshot current = catalog.catalog().loadTable(catalog.identifier(topic)).currentSnapshot();
            return current == null ? 0 : Long.parseLong(current.summary().getOrDefault("total-records", "0"));
        }
    }

    /**
     * Asserts that the topic's table lists exactly the archive's committed files (as readers through the table see them:
     * without the files a compaction replaced), and that its rows, read by Iceberg's
     * reader and by DuckDB, are {@code truth} exactly once each, with their keys and values.
     */
    public static void assertEqualsTruth(ArchiverConfig config, String topic, List<ArchiveRecord> truth) throws Exception {
        Table table = table(config, topic);
        Set<String> inTable = new TreeSet<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            tasks.forEach(t -> inTable.add(t.file().location()));
        }
        Set<String> archived = new TreeSet<>();
        for (ArchiveFile f : TableArchiveFiles.of(config).list().committed()) {
            archived.add(f.path().toString());
        }
        assertThat(inTable).as("files of the table's current snapshot against the archive's committed files").isEqualTo(archived);

        Map<String, ArchiveRecord> expected = new HashMap<>();
        truth.forEach(r -> expected.put(r.getPartition() + "@" + r.getOffset(), r));
        Map<String, Integer> seen = new HashMap<>();
        List<String> wrong = new ArrayList<>();
        for (Record row : IcebergRows.of(table)) {
                String id = row.getField("partition") + "@" + row.getField("offset");
                seen.merge(id, 1, Integer::sum);
                ArchiveRecord want = expected.get(id);
                if (want != null && (!sameBytes(want.getKey(), row.getField("key")) || !sameBytes(want.getValue(), row.getField("value")))) {
                wrong.add(id);
            }
        }
        assertThat(seen.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).toList())
                .as("records the table holds more than once").isEmpty();
        assertThat(new TreeSet<>(seen.keySet())).as("records of the table (Iceberg's reader) against the read_committed truth")
                .isEqualTo(new TreeSet<>(expected.keySet()));
        assertThat(wrong).as("records whose key or value differ from Kafka's").isEmpty();
        assertDuckDbReads(inTable, truth.size());
    }

    /** DuckDB over the snapshot's data files (copied out of S3: its S3 extension is not installed here). */
    private static void assertDuckDbReads(Set<String> files, int expected) throws Exception {
        java.nio.file.Path dir = Files.createTempDirectory("table-files");
        List<String> local = new ArrayList<>();
        int i = 0;
        for (String file : files) {
            java.nio.file.Path copy = dir.resolve((i++) + ".parquet");
            Path path = new Path(file);
            try (FSDataInputStream in = path.getFileSystem().open(path)) {
                Files.copy(in, copy);
            }
            local.add("'" + copy + "'");
        }
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*), count(DISTINCT (\"partition\", \"offset\")) FROM read_parquet(["
                        + String.join(",", local) + "], union_by_name = true)")) {
            rs.next();
            assertThat(rs.getLong(1)).as("rows DuckDB reads in the snapshot's files").isEqualTo(expected);
            assertThat(rs.getLong(2)).as("distinct positions DuckDB reads").isEqualTo(expected);
        } finally {
            for (java.nio.file.Path p : Files.list(dir).collect(Collectors.toList())) {
                Files.delete(p);
            }
            Files.delete(dir);
        }
    }

    /**
     * Waits until the scenario's producer is done and the topic's table holds every committed record, then drains the
     * scenario (the job stopped), checks the archive exactly once and returns what Kafka holds.
     */
    public static List<ArchiveRecord> drainWithTable(FaultScenario s) throws Exception {
        return drainWithTable(s, s.config());
    }

    /** {@link #drainWithTable(FaultScenario)} with the tables of {@code config} (a job resumed with tables enabled). */
    public static List<ArchiveRecord> drainWithTable(FaultScenario s, ArchiverConfig config) throws Exception {
        List<ArchiveRecord> truth = drainIntoTable(s, config);
        ArchiveAssertions.assertExactlyOnce(s.config().sinkPath(), io.archiver.record.PayloadFormats.of(s.config()), truth);
        return truth;
    }

    /**
     * Waits until the scenario's producer is done and the topic's table holds every committed record, then drains the
     * scenario (the job stopped) and returns what Kafka holds.
     */
    public static List<ArchiveRecord> drainIntoTable(FaultScenario s) throws Exception {
        return drainIntoTable(s, s.config());
    }

    private static List<ArchiveRecord> drainIntoTable(FaultScenario s, ArchiverConfig config) throws Exception {
        s.awaitProducerDone();
        Await.until("the table holds every committed record", java.time.Duration.ofMinutes(2),
                () -> records(config, s.topic()) >= s.committedSoFar(),
                () -> "table " + records(config, s.topic()) + " of " + s.committedSoFar());
        return s.drain();
    }

    /** The jobs whose snapshots the table's history holds (summary {@code archiver.job}). */
    public static Set<String> appendingJobs(ArchiverConfig config, String topic) throws Exception {
        Set<String> jobs = new HashSet<>();
        for (Snapshot s : table(config, topic).snapshots()) {
            if (s.summary().containsKey("archiver.job")) {
                jobs.add(s.summary().get("archiver.job"));
            }
        }
        return jobs;
    }

    private static boolean sameBytes(byte[] expected, Object actual) {
        if (expected == null || actual == null) {
            return expected == null && actual == null;
        }
        byte[] bytes;
        if (actual instanceof ByteBuffer b) {
            bytes = new byte[b.remaining()];
            b.duplicate().get(bytes);
        } else {
            bytes = actual.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        }
        return java.util.Arrays.equals(expected, bytes);
    }
}
