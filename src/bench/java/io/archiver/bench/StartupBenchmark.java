package io.archiver.bench;

import io.archiver.archive.ArchiveFiles;
import io.archiver.archive.ArchiveRoot;
import io.archiver.fs.MetadataObjects;
import io.archiver.job.JobLauncher;
import io.archiver.local.EmbeddedS3;
import io.archiver.position.PositionRecord;
import io.archiver.position.PositionRecovery;
import io.archiver.position.PositionStore;
import io.archiver.position.SubtaskPositions;

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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Cost of finding where to resume without a checkpoint, on an archive of 10,000 partitions and 100,000 files
 * (S3Proxy, filesystem backend), written by 2 committer subtasks: the archiver's positions (one object per
 * committer subtask) after a completed commit (settled) and after a commit of every partition cut short by the
 * stop (each record lists a file to check); the per-partition position records of earlier versions; and the
 * least a recovery that looks at the archived files must do, listing them (no file read).
 * Each figure is the median of the rounds (min–max), after one warm-up round; S3 requests are counted at the
 * server. Writes {@code target/bench/startup.md} and {@code .csv}.
 *
 * <p>{@code mvn -q -DskipTests package exec:exec@bench -Dbench.class=StartupBenchmark
 * [-Dbench.args="-Dbench.startup.partitions=10000 -Dbench.startup.files-per-partition=10 -Dbench.startup.subtasks=2
 * -Dbench.rounds=3"]}
 */
public final class StartupBenchmark {

    private static final String BUCKET = "bench";
    private static final String TOPIC = "orders";
    private static final String ARCHIVE = "startup";
    private static final long RECORDS_PER_FILE = 1_000;
    private static final long NEXT_OFFSET = 1_000_000;
    private static final byte[] PLACEHOLDER = "PAR1 benchmark placeholder".getBytes(StandardCharsets.UTF_8);

    public static void main(String[] args) throws Exception {
        run();
        System.exit(0);
    }

    /** Runs the benchmark and writes its report under {@code target/bench}. */
    static void run() throws Exception {
        int partitions = Integer.getInteger("bench.startup.partitions", 10_000);
        int filesPerPartition = Integer.getInteger("bench.startup.files-per-partition", 10);
        int subtasks = Integer.getInteger("bench.startup.subtasks", 2);
        int rounds = Integer.getInteger("bench.rounds", 3);
        Path work = BenchStack.workFolder("startup-bench");
        RequestCountingBlobStore[] counter = new RequestCountingBlobStore[1];
        try (EmbeddedS3 s3 = EmbeddedS3.start(work.resolve("s3"), 0, store -> counter[0] = new RequestCountingBlobStore(store))) {
            s3.createBucket(BUCKET);
            Configuration fs = new Configuration();
            s3.flinkSettings().forEach(fs::setString);
            JobLauncher.initializeFileSystems(fs);
            String root = "s3://" + BUCKET + "/" + ARCHIVE;
            long setup = System.nanoTime();
            List<String> lastFiles = populate(s3, root, partitions, filesPerPartition);
            List<TopicPartition> tps = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                tps.add(new TopicPartition(TOPIC, p));
            }
            String cutShort = "s3://" + BUCKET + "/positions-cut-short";
            String settled = "s3://" + BUCKET + "/positions-settled";
            String perPartition = "s3://" + BUCKET + "/positions-per-partition";
            writeSubtaskPositions(cutShort, lastFiles, subtasks, false);
            writeSubtaskPositions(settled, lastFiles, subtasks, true);
            writePerPartitionRecords(perPartition, lastFiles);
            System.out.printf("Archive of %d partitions x %d files and its positions ready in %.1f s%n",
                    partitions, filesPerPartition, (System.nanoTime() - setup) / 1e9);

            List<Result> results = new ArrayList<>();
            results.add(resume("archiver: " + subtasks + " subtask objects, last commit complete",
                    settled, tps, rounds, counter[0]));
            results.add(resume("archiver: " + subtasks + " subtask objects, a commit of every partition cut short",
                    cutShort, tps, rounds, counter[0]));
            results.add(resume("earlier versions: a position record per partition", perPartition, tps, rounds, counter[0]));
            results.add(measure("baseline: list the archived files", rounds, counter[0], () -> {
                int files = ArchiveFiles.listed(ArchiveRoot.of(root)).list().committed().size();
                check(files == partitions * filesPerPartition, "files listed: " + files);
                return files;
            }));
            write(results, partitions, filesPerPartition, subtasks, rounds);
        }
    }

    private static Result resume(String name, String positionsRoot, List<TopicPartition> tps, int rounds,
            RequestCountingBlobStore counter) throws Exception {
        PositionRecovery recovery = new PositionRecovery(ArchiveRoot.of(positionsRoot));
        return measure(name, rounds, counter, () -> {
            Map<TopicPartition, Long> positions = recovery.resumePositions(tps);
            check(positions.size() == tps.size(), "positions found: " + positions.size());
            return positions.size();
        });
    }

    /**
     * Writes the positions as {@code subtasks} committers do (partition p by subtask p modulo subtasks), each
     * record naming the partition's last file; {@code settled}: the commit completed (the records then list no
     * file).
     */
    private static void writeSubtaskPositions(String root, List<String> lastFiles, int subtasks, boolean settled) throws Exception {
        PositionStore store = new PositionStore(ArchiveRoot.of(root));
        for (int s = 0; s < subtasks; s++) {
            List<PositionRecord> commit = new ArrayList<>();
            for (int p = s; p < lastFiles.size(); p += subtasks) {
                commit.add(record(p, lastFiles.get(p)));
            }
            SubtaskPositions positions = new SubtaskPositions(store, s);
            positions.write(commit);
            if (settled) {
                positions.committed();
            }
        }
    }

    private static PositionRecord record(int partition, String lastFile) {
        long next = NEXT_OFFSET;
        return new PositionRecord(TOPIC, partition, next, 1, List.of(new PositionRecord.PendingFile(
                lastFile, next - RECORDS_PER_FILE, next - 1, RECORDS_PER_FILE, PLACEHOLDER.length, 1, new byte[0])));
    }

    /** The per-partition records of earlier versions, written through S3 16 at a time. */
    private static void writePerPartitionRecords(String root, List<String> lastFiles) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            List<Future<?>> writes = new ArrayList<>();
            for (int p = 0; p < lastFiles.size(); p++) {
                String json = String.format("{\"format\":1,\"topic\":\"%s\",\"partition\":%d,\"next_offset\":%d,\"checkpoint\":1,"
                        + "\"files\":[{\"path\":\"%s\",\"first_offset\":%d,\"last_offset\":%d,\"records\":%d,\"bytes\":%d,"
                        + "\"upload_version\":1,\"upload\":\"\"}]}", TOPIC, p, NEXT_OFFSET, lastFiles.get(p),
                        NEXT_OFFSET - RECORDS_PER_FILE, NEXT_OFFSET - 1, RECORDS_PER_FILE, PLACEHOLDER.length);
                org.apache.flink.core.fs.Path path = new org.apache.flink.core.fs.Path(root + "/_archiver/positions/" + TOPIC + "/" + p + ".json");
                writes.add(pool.submit(() -> {
                    MetadataObjects.write(path, json.getBytes(StandardCharsets.UTF_8));
                    return null;
                }));
            }
            for (Future<?> w : writes) {
                w.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** Data files, written straight into the S3 server's folder (fast); returns the last file of each partition. */
    private static List<String> populate(EmbeddedS3 s3, String root, int partitions, int filesPerPartition) throws Exception {
        Path bucketDir = s3.dataDir().resolve(BUCKET).resolve(ARCHIVE);
        List<String> lastFiles = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            String last = null;
            for (int f = 0; f < filesPerPartition; f++) {
                String rel = "topic=" + TOPIC + "/partition=" + p + "/date=" + LocalDate.of(2026, 1, 1).plusDays(f / 24)
                        + "/part-" + f + ".parquet";
                Path file = bucketDir.resolve(rel);
                Files.createDirectories(file.getParent());
                Files.write(file, PLACEHOLDER);
                last = root + "/" + rel;
            }
            lastFiles.add(last);
        }
        return lastFiles;
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

    private static void write(List<Result> results, int partitions, int filesPerPartition, int subtasks, int rounds)
            throws Exception {
        Result baseline = results.get(results.size() - 1);
        StringBuilder md = new StringBuilder();
        StringBuilder csv = new StringBuilder("variant,seconds_median,seconds_min,seconds_max,s3_requests,time_vs_baseline\n");
        md.append("# Start-up without a checkpoint, ").append(LocalDate.now()).append("\n\n").append(partitions).append(" partitions, ")
                .append(partitions * filesPerPartition).append(" archived files (").append(filesPerPartition)
                .append(" per partition), positions written by ").append(subtasks).append(" committer subtasks, S3Proxy ").append("filesystem backend, ").append(Runtime.getRuntime().availableProcessors())
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
