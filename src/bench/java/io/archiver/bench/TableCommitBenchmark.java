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
import io.archiver.table.TableFile;
import io.archiver.table.TablePositions;
import io.archiver.table.TableSettings;

import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * What a table commit costs per checkpoint as the files of a checkpoint grow with the partitions (the per-partition
 * layout writes a file per partition and checkpoint): {@link ArchiveTable#append} of one checkpoint's files, the
 * footers read on 8 threads (the committer's {@code sink.commit-threads}), a manifest, a manifest list, the table's
 * metadata and one catalog update (SQLite), on the local stack; S3 requests counted at the server. Each figure is the
 * median of the rounds (min–max) after one warm-up round. Writes {@code target/bench/table-commit.md}.
 *
 * <p>{@code mvn -q -DskipTests package exec:exec@bench -Dbench.class=TableCommitBenchmark
 * [-Dbench.args="-Dbench.table.partitions=8,1000 -Dbench.rounds=5"]}; {@code -Dbench.s3.latency-ms=N} adds a round
 * trip to every S3 request.
 */
public final class TableCommitBenchmark {

    private static final int RECORDS_PER_FILE = 100;

    private TableCommitBenchmark() {}

    public static void main(String[] args) throws Exception {
        run();
        System.exit(0);
    }

    static void run() throws Exception {
        int rounds = Integer.getInteger("bench.rounds", 5);
        List<Integer> sizes = new ArrayList<>();
        for (String p : System.getProperty("bench.table.partitions", "8,1000").split(",")) {
            sizes.add(Integer.parseInt(p.trim()));
        }
        java.nio.file.Path work = BenchStack.workFolder("table-commit");
        RequestCountingBlobStore[] counter = new RequestCountingBlobStore[1];
        StringBuilder md = new StringBuilder("# Table commits per checkpoint\n\n")
                .append("One checkpoint's files (a file of ").append(RECORDS_PER_FILE).append(" records per partition) appended to the topic's ")
                .append("Iceberg table by `ArchiveTable.append`: footers read on 8 threads, a manifest, a manifest list, the metadata, ")
                .append("one SQLite catalog update; S3Proxy on this machine");
        if (RequestCountingBlobStore.latencyMillis() > 0) {
            md.append(", every S3 request held ").append(RequestCountingBlobStore.latencyMillis()).append(" ms");
        }
        md.append(". Median of ").append(rounds).append(" commits after one warm-up (min–max).\n\n")
                .append("| files per checkpoint | commit ms | ms per file | S3 requests per commit | × the smallest |\n|---|---|---|---|---|\n");
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try (BenchStack stack = BenchStack.start(work, store -> counter[0] = new RequestCountingBlobStore(store))) {
            Double smallest = null;
            for (int partitions : sizes) {
                String root = "s3://" + BenchStack.BUCKET + "/table-" + partitions;
                TableSettings settings = new TableSettings(CatalogType.JDBC, "bench", "jdbc:sqlite:" + work.resolve("catalog-" + partitions + ".db"),
                        root + "/_archiver/tables", null, null, null, null, Map.of(), "kafka", "", true,
                        SinkLayout.PER_PARTITION, TimePartitioning.HOUR, PayloadFormats.BYTES);
                List<Long> millis = new ArrayList<>();
                List<Long> requests = new ArrayList<>();
                try (ArchiveCatalog catalog = ArchiveCatalog.open(settings)) {
                    ArchiveTable table = catalog.table("orders");
                    for (int round = 0; round <= rounds; round++) {
                        List<TableFile> files = write(work, root, partitions, round);
                        long before = counter[0].total();
                        long start = System.nanoTime();
                        ArchiveTable.Appended appended = table.append(files, Map.of(TablePositions.CHECKPOINT, Integer.toString(round)), pool);
                        long took = (System.nanoTime() - start) / 1_000_000;
                        if (appended.files() != partitions) {
                            throw new IllegalStateException("appended " + appended.files() + " of " + partitions + " files");
                        }
                        System.out.printf("%d partitions, round %d: %d ms, %d S3 requests%n", partitions, round, took, counter[0].total() - before);
                        if (round > 0) {
                            millis.add(took);
                            requests.add(counter[0].total() - before);
                        }
                    }
                }
                Collections.sort(millis);
                Collections.sort(requests);
                double median = millis.get(millis.size() / 2);
                smallest = smallest == null ? median : smallest;
                md.append(String.format("| %,d | %.0f (%d–%d) | %.2f | %d | %.1f× |%n", partitions, median, millis.get(0),
                        millis.get(millis.size() - 1), median / partitions, requests.get(requests.size() / 2), median / smallest));
            }
        } finally {
            pool.shutdownNow();
        }
        java.nio.file.Path out = java.nio.file.Path.of("target", "bench");
        Files.createDirectories(out);
        Files.writeString(out.resolve("table-commit.md"), md);
        System.out.println(md);
    }

    /** One checkpoint's files: per partition, {@value #RECORDS_PER_FILE} records after the previous round's, uploaded to S3. */
    private static List<TableFile> write(java.nio.file.Path work, String root, int partitions, int round) throws Exception {
        EnvelopeParquetWriterFactory factory = new EnvelopeParquetWriterFactory(
                new EnvelopeParquetBuilder(PayloadFormats.BYTES, ParquetCompression.ZSTD, 1, 1 << 20, 64 * 1024));
        List<TableFile> files = new ArrayList<>(partitions);
        java.nio.file.Path local = work.resolve("file.parquet");
        for (int p = 0; p < partitions; p++) {
            List<ArchiveRecord> records = new ArrayList<>(RECORDS_PER_FILE);
            long first = (long) round * RECORDS_PER_FILE;
            for (int i = 0; i < RECORDS_PER_FILE; i++) {
                records.add(new ArchiveRecord("orders", p, first + i, 1_767_225_600_000L + first + i, "CreateTime",
                        ("key-" + i).getBytes(StandardCharsets.UTF_8), ("value " + (first + i)).getBytes(StandardCharsets.UTF_8),
                        new String[0], new byte[0][]));
            }
            Files.deleteIfExists(local);
            LocalPartFiles.write(local, factory, records);
            byte[] bytes = Files.readAllBytes(local);
            Path path = new Path(root + "/topic=orders/partition=" + p + "/date=2026-01-01/hour=00/part-" + round + "-" + p + ".parquet");
            try (FSDataOutputStream out = path.getFileSystem().create(path, FileSystem.WriteMode.OVERWRITE)) {
                out.write(bytes);
            }
            files.add(new TableFile(path.toString(), bytes.length, List.of(new FileStats("orders", p, first, first + RECORDS_PER_FILE - 1, RECORDS_PER_FILE))));
        }
        return files;
    }
}
