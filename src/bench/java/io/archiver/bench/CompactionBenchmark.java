package io.archiver.bench;

import io.archiver.config.CatalogType;
import io.archiver.config.SinkLayout;
import io.archiver.config.TimePartitioning;
import io.archiver.format.LocalPartFiles;
import io.archiver.format.parquet.EnvelopeParquetBuilder;
import io.archiver.format.parquet.EnvelopeParquetWriterFactory;
import io.archiver.format.parquet.ParquetCompression;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;
import io.archiver.sink.files.FileStats;
import io.archiver.table.ArchiveCatalog;
import io.archiver.table.ArchiveTable;
import io.archiver.table.TableCompaction;
import io.archiver.table.TableFile;
import io.archiver.table.TablePositions;
import io.archiver.table.TableSettings;

import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * What `table compact` buys and costs over a day of small files: a topic's table holding a file per partition and
 * checkpoint (every 5 minutes, the per-partition layout, hour folders) for 24 hours, queried with DuckDB over the
 * current snapshot's files before and after one compaction (the files read where the S3 server keeps them, as an
 * engine with the table's file list would read them from S3); the compaction's time and S3 requests. Each query is
 * the median of the rounds after one warm-up. Writes {@code target/bench/compaction.md}.
 *
 * <p>{@code mvn -q -DskipTests package exec:exec@bench -Dbench.class=CompactionBenchmark
 * [-Dbench.args="-Dbench.compaction.partitions=4 -Dbench.compaction.records=2000 -Dbench.rounds=5"]}.
 */
public final class CompactionBenchmark {

    private static final int HOURS = 24;
    private static final int CHECKPOINTS_PER_HOUR = 12;
    private static final long DAY = 1_767_225_600_000L;
    private static final String QUERY = "SELECT \"partition\", count(*), sum(octet_length(\"value\")), max(\"timestamp\") FROM read_parquet([%s]) "
            + "WHERE \"timestamp\" >= TIMESTAMPTZ '2026-01-01 06:00:00+00' GROUP BY ALL ORDER BY ALL";

    private CompactionBenchmark() {}

    public static void main(String[] args) throws Exception {
        run();
        System.exit(0);
    }

    static void run() throws Exception {
        int rounds = Integer.getInteger("bench.rounds", 5);
        int partitions = Integer.getInteger("bench.compaction.partitions", 4);
        int records = Integer.getInteger("bench.compaction.records", 2_000);
        java.nio.file.Path work = BenchStack.workFolder("compaction");
        RequestCountingBlobStore[] counter = new RequestCountingBlobStore[1];
        ExecutorService pool = Executors.newFixedThreadPool(8);
        StringBuilder md = new StringBuilder("# Compaction of a day of small files\n\n");
        try (BenchStack stack = BenchStack.start(work, store -> counter[0] = new RequestCountingBlobStore(store))) {
            String root = "s3://" + BenchStack.BUCKET + "/compaction";
            TableSettings settings = new TableSettings(CatalogType.JDBC, "bench", "jdbc:sqlite:" + work.resolve("catalog.db"),
                    root + "/_archiver/tables", null, null, null, null, Map.of(), "kafka", "", true,
                    SinkLayout.PER_PARTITION, TimePartitioning.HOUR, PayloadFormats.BYTES);
            java.nio.file.Path bucket = stack.s3().dataDir().resolve(BenchStack.BUCKET);
            try (ArchiveCatalog catalog = ArchiveCatalog.open(settings)) {
                ArchiveTable table = catalog.table("orders");
                long bytes = 0;
                for (int hour = 0; hour < HOURS; hour++) {
                    List<TableFile> files = write(work, root, partitions, records, hour);
                    bytes += files.stream().mapToLong(TableFile::size).sum();
                    table.append(files, Map.of(TablePositions.CHECKPOINT, Integer.toString(hour)), pool);
                }
                List<String> before = files(table.table(), bucket);
                long[] beforeQuery = query(before, rounds);
                long requests = counter[0].total();
                long start = System.nanoTime();
                TableCompaction.Result result = TableCompaction.compact(table, Set.of(),
                        new TableCompaction.Settings(128L << 20, Duration.ofHours(1)), Instant.now(), false, pool);
                long compactMillis = (System.nanoTime() - start) / 1_000_000;
                requests = counter[0].total() - requests;
                List<String> after = files(table.table(), bucket);
                long[] afterQuery = query(after, rounds);
                if (afterQuery[3] != beforeQuery[3]) {
                    throw new IllegalStateException("the query read " + afterQuery[3] + " rows after, " + beforeQuery[3] + " before");
                }
                md.append(String.format("A day (%d hour folders) of a topic of %d partitions, a file per partition every 5 minutes (%d records "
                                + "of about 100 bytes, zstd): %,d files, %.1f MB, in one Iceberg table (SQLite catalog, S3Proxy on this "
                                + "machine). DuckDB over the current snapshot's files, `%s`, median of %d runs after a warm-up (min–max).%n%n",
                        HOURS, partitions, records, before.size(), bytes / 1e6, QUERY.formatted("…"), rounds))
                        .append("| | files | query ms | × before |\n|---|---|---|---|\n")
                        .append(String.format("| before `table compact` | %,d | %d (%d–%d) | 1.00 |%n", before.size(), beforeQuery[0], beforeQuery[1], beforeQuery[2]))
                        .append(String.format("| after | %,d | %d (%d–%d) | %.2f |%n%n", after.size(), afterQuery[0], afterQuery[1], afterQuery[2],
                                (double) afterQuery[0] / beforeQuery[0]))
                        .append(String.format("The compaction: %,d files of %d folders into %d, %.1f MB, in %,d ms and %,d S3 requests "
                                + "(%.1f per file replaced); %d files per partition and hour after it (goal: at most one per target size).%n",
                                result.filesReplaced(), result.folders(), result.filesWritten(), result.bytes() / 1e6, compactMillis, requests,
                                (double) requests / result.filesReplaced(), after.size() / (partitions * HOURS)));
            }
        } finally {
            pool.shutdownNow();
        }
        java.nio.file.Path out = java.nio.file.Path.of("target", "bench");
        Files.createDirectories(out);
        Files.writeString(out.resolve("compaction.md"), md);
        System.out.println(md);
    }

    /** The current snapshot's files, as paths where the S3 server keeps them. */
    private static List<String> files(Table table, java.nio.file.Path bucket) throws Exception {
        table.refresh();
        List<String> files = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            for (FileScanTask t : tasks) {
                String key = URI.create(t.file().location()).getPath().substring(1);
                files.add("'" + bucket.resolve(key) + "'");
            }
        }
        return files;
    }

    /** {median, min, max} milliseconds of the query over {@code files}, and the rows it counted. */
    private static long[] query(List<String> files, int rounds) throws Exception {
        List<Long> millis = new ArrayList<>();
        long rows = 0;
        for (int round = 0; round <= rounds; round++) {
            try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement()) {
                long start = System.nanoTime();
                rows = 0;
                try (ResultSet rs = s.executeQuery(QUERY.formatted(String.join(",", files)))) {
                    while (rs.next()) {
                        rows += rs.getLong(2);
                    }
                }
                if (round > 0) {
                    millis.add((System.nanoTime() - start) / 1_000_000);
                }
            }
        }
        Collections.sort(millis);
        return new long[] {millis.get(millis.size() / 2), millis.get(0), millis.get(millis.size() - 1), rows};
    }

    /** An hour's files: per partition and checkpoint, {@code records} records after the previous ones, uploaded to S3. */
    private static List<TableFile> write(java.nio.file.Path work, String root, int partitions, int records, int hour) throws Exception {
        EnvelopeParquetWriterFactory factory = new EnvelopeParquetWriterFactory(
                new EnvelopeParquetBuilder(PayloadFormats.BYTES, ParquetCompression.ZSTD, 1, 1 << 20, 64 * 1024));
        List<TableFile> files = new ArrayList<>();
        java.nio.file.Path local = work.resolve("file.parquet");
        for (int checkpoint = 0; checkpoint < CHECKPOINTS_PER_HOUR; checkpoint++) {
            long first = ((long) hour * CHECKPOINTS_PER_HOUR + checkpoint) * records;
            long time = DAY + hour * 3_600_000L + checkpoint * 300_000L;
            for (int p = 0; p < partitions; p++) {
                List<ArchiveRecord> batch = new ArrayList<>(records);
                for (int i = 0; i < records; i++) {
                    batch.add(new ArchiveRecord("orders", p, first + i, time + i * 300_000L / records, "CreateTime",
                            ("customer-" + (first + i) % 997).getBytes(StandardCharsets.UTF_8),
                            ("{\"order\":" + (first + i) + ",\"amount\":" + ((first + i) * 37 % 10_000) + ",\"status\":\"paid\",\"items\":3}")
                                    .getBytes(StandardCharsets.UTF_8), new String[0], new byte[0][]));
                }
                Files.deleteIfExists(local);
                LocalPartFiles.write(local, factory, batch);
                byte[] bytes = Files.readAllBytes(local);
                Path path = new Path(String.format("%s/topic=orders/partition=%d/date=2026-01-01/hour=%02d/part-%d-%d.parquet",
                        root, p, hour, checkpoint, p));
                try (FSDataOutputStream out = path.getFileSystem().create(path, FileSystem.WriteMode.OVERWRITE)) {
                    out.write(bytes);
                }
                files.add(new TableFile(path.toString(), bytes.length, List.of(new FileStats("orders", p, first, first + records - 1, records))));
            }
        }
        return files;
    }
}
