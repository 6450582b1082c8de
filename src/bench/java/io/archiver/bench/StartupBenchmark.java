package io.archiver.bench;

import io.archiver.audit.ArchiveScanner;
import io.archiver.job.JobLauncher;
import io.archiver.local.EmbeddedS3;
import io.archiver.position.PositionRecord;
import io.archiver.position.PositionRecovery;
import io.archiver.position.PositionStore;

import org.apache.flink.configuration.Configuration;
import org.apache.kafka.common.TopicPartition;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * Cost of finding where to resume without a checkpoint, on an archive of 1,000 partitions and 100,000 files
 * (S3Proxy, filesystem backend): the archiver's position records against the least a recovery that looks at
 * the archived files must do, listing them (no file read). Each figure is the median of the rounds (min–max),
 * after one warm-up round; S3 requests are counted at the server. Writes {@code target/bench/startup.md} and
 * {@code .csv}.
 *
 * <p>{@code mvn -q -DskipTests package exec:exec@bench -Dbench.class=StartupBenchmark
 * [-Dbench.args="-Dbench.startup.partitions=1000 -Dbench.startup.files-per-partition=100 -Dbench.rounds=3"]}
 */
public final class StartupBenchmark {

    private static final String BUCKET = "bench";
    private static final String TOPIC = "orders";
    private static final long RECORDS_PER_FILE = 1_000;

    public static void main(String[] args) throws Exception {
        run();
        System.exit(0);
    }

    /** Runs the benchmark and writes its report under {@code target/bench}. */
    static void run() throws Exception {
        int partitions = Integer.getInteger("bench.startup.partitions", 1_000);
        int filesPerPartition = Integer.getInteger("bench.startup.files-per-partition", 100);
        int rounds = Integer.getInteger("bench.rounds", 3);
        Path work = Files.createTempDirectory("startup-bench");
        RequestCountingBlobStore[] counter = new RequestCountingBlobStore[1];
        try (EmbeddedS3 s3 = EmbeddedS3.start(work.resolve("s3"), 0, store -> counter[0] = new RequestCountingBlobStore(store))) {
            s3.createBucket(BUCKET);
            Configuration fs = new Configuration();
            s3.flinkSettings().forEach(fs::setString);
            JobLauncher.initializeFileSystems(fs);
            String root = "s3://" + BUCKET + "/startup";
            long setup = System.nanoTime();
            List<TopicPartition> tps = populate(s3, root, partitions, filesPerPartition);
            System.out.printf("Archive of %d partitions x %d files ready in %.1f s%n",
                    partitions, filesPerPartition, (System.nanoTime() - setup) / 1e9);

            PositionRecovery recovery = new PositionRecovery(root);
            List<Result> results = new ArrayList<>();
            results.add(measure("archiver: position records", rounds, counter[0], () -> {
                Map<TopicPartition, Long> positions = recovery.resumePositions(tps);
                check(positions.size() == partitions, "positions found: " + positions.size());
                return positions.size();
            }));
            results.add(measure("baseline: list the archived files", rounds, counter[0], () -> {
                int files = ArchiveScanner.committedFiles(root).size();
                check(files == partitions * filesPerPartition, "files listed: " + files);
                return files;
            }));
            write(results, partitions, filesPerPartition, rounds);
        }
    }

    /**
     * Data files are written straight into the S3 server's folder (fast); position records through S3, as
     * the committer writes them: each names the partition's last file, which exists.
     */
    private static List<TopicPartition> populate(EmbeddedS3 s3, String root, int partitions, int filesPerPartition) throws Exception {
        Path bucketDir = s3.dataDir().resolve(BUCKET).resolve("startup");
        byte[] content = "PAR1 benchmark placeholder".getBytes(StandardCharsets.UTF_8);
        PositionStore store = new PositionStore(root);
        List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            String last = null;
            for (int f = 0; f < filesPerPartition; f++) {
                String rel = "topic=" + TOPIC + "/partition=" + p + "/date=" + LocalDate.of(2026, 1, 1).plusDays(f / 24)
                        + "/part-" + f + ".parquet";
                Path file = bucketDir.resolve(rel);
                Files.createDirectories(file.getParent());
                Files.write(file, content);
                last = root + "/" + rel;
            }
            long next = filesPerPartition * RECORDS_PER_FILE;
            store.write(new PositionRecord(TOPIC, p, next, filesPerPartition, List.of(new PositionRecord.PendingFile(
                    last, next - RECORDS_PER_FILE, next - 1, RECORDS_PER_FILE, content.length, 1, new byte[0]))));
            tps.add(new TopicPartition(TOPIC, p));
        }
        return tps;
    }

    private static Result measure(String name, int rounds, RequestCountingBlobStore counter, Callable<Integer> run) throws Exception {
        run.call();
        List<Double> seconds = new ArrayList<>();
        long requests = 0;
        for (int r = 0; r < rounds; r++) {
            long before = counter.total();
            long start = System.nanoTime();
            run.call();
            seconds.add((System.nanoTime() - start) / 1e9);
            requests = counter.total() - before;
        }
        Collections.sort(seconds);
        Result result = new Result(name, seconds.get(seconds.size() / 2), seconds.get(0), seconds.get(seconds.size() - 1), requests);
        System.out.printf("%s: %.2f s (%.2f-%.2f), %d S3 requests%n", name, result.median, result.min, result.max, requests);
        return result;
    }

    private static void write(List<Result> results, int partitions, int filesPerPartition, int rounds) throws Exception {
        Result baseline = results.get(results.size() - 1);
        StringBuilder md = new StringBuilder();
        StringBuilder csv = new StringBuilder("variant,seconds_median,seconds_min,seconds_max,s3_requests,time_vs_baseline\n");
        md.append("# Start-up without a checkpoint, ").append(LocalDate.now()).append("\n\n").append(partitions).append(" partitions, ")
                .append(partitions * filesPerPartition).append(" archived files (").append(filesPerPartition)
                .append(" per partition), S3Proxy ").append("filesystem backend, ").append(Runtime.getRuntime().availableProcessors())
                .append(" cores, Java ").append(System.getProperty("java.version")).append(". Median of ").append(rounds)
                .append(" rounds after one warm-up (min–max).\n\n")
                .append("| variant | seconds | S3 requests | time × baseline |\n|---|---|---|---|\n");
        for (Result r : results) {
            md.append(String.format("| %s | %.2f (%.2f–%.2f) | %,d | %.3f |%n", r.name, r.median, r.min, r.max, r.requests, r.median / baseline.median));
            csv.append(String.format("%s,%.4f,%.4f,%.4f,%d,%.4f%n", r.name, r.median, r.min, r.max, r.requests, r.median / baseline.median));
        }
        Path dir = Path.of("target", "bench");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("startup.md"), md);
        Files.writeString(dir.resolve("startup.csv"), csv);
        System.out.println(md);
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException("benchmark invariant broken: " + what);
        }
    }

    private static final class Result {
        final String name;
        final double median;
        final double min;
        final double max;
        final long requests;

        Result(String name, double median, double min, double max, long requests) {
            this.name = name;
            this.median = median;
            this.min = min;
            this.max = max;
            this.requests = requests;
        }
    }
}
