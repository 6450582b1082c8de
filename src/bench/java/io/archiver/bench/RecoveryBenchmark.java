package io.archiver.bench;

import io.archiver.archive.ArchiveFiles;
import io.archiver.archive.ArchiveRoot;
import io.archiver.config.ArchiverConfig;
import io.archiver.job.JobLauncher;
import io.archiver.local.EmbeddedKafka;
import io.archiver.local.EmbeddedS3;
import io.archiver.position.ArchivePositions;
import io.archiver.position.PositionRecord;
import io.archiver.position.PositionStore;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.common.TopicPartition;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Recovery: how long a restarted archiver takes from start to the first record archived, and to every
 * partition caught up, for a topic of 1,000 partitions, resuming (a) from a savepoint and (b) from the
 * archive alone (no checkpoint or savepoint: the position records). Each round archives a pre-loaded topic
 * with a first job, stops it with a savepoint, produces one more record per partition, then starts the
 * variant; the clock starts when the job is submitted (Flink's local MiniCluster start included, the wait for
 * the stopped job's lease excluded and reported apart) and a poller reads the S3 server's folder every 50 ms.
 * One warm-up round, then the median (min–max). Writes {@code target/bench/recovery.md} and {@code .csv}.
 * {@code bench.s3.latency-ms} answers every S3 request that much later ({@link RequestCountingBlobStore}).
 *
 * <p>{@code mvn -q -DskipTests package exec:exec@bench -Dbench.class=RecoveryBenchmark
 * [-Dbench.args="-Dbench.recovery.partitions=1000 -Dbench.rounds=3 -Dbench.s3.latency-ms=0"]}
 */
public final class RecoveryBenchmark {

    private static final Duration DEADLINE = Duration.ofMinutes(5);
    private static final int RECORDS_PER_PARTITION = 20;

    private final EmbeddedKafka kafka;
    private final EmbeddedS3 s3;
    private final Path work;
    private final int partitions;

    private RecoveryBenchmark(EmbeddedKafka kafka, EmbeddedS3 s3, Path work, int partitions) {
        this.kafka = kafka;
        this.s3 = s3;
        this.work = work;
        this.partitions = partitions;
    }

    /** Seconds from submission to the first record archived and to every partition caught up; lease wait. */
    record Run(double first, double all, double leaseWait) {}

    public static void main(String[] args) throws Exception {
        run();
        System.exit(0);
    }

    /** Runs the benchmark and writes its report under {@code target/bench}. */
    static void run() throws Exception {
        int partitions = Integer.getInteger("bench.recovery.partitions", 1_000);
        int rounds = Integer.getInteger("bench.rounds", 3);
        Path work = BenchStack.workFolder("recovery-bench");
        Map<String, List<Run>> runs = new LinkedHashMap<>();
        try (BenchStack stack = BenchStack.start(work, RequestCountingBlobStore::new)) {
            EmbeddedS3 s3 = stack.s3();
            EmbeddedKafka kafka = stack.kafka();
            RecoveryBenchmark bench = new RecoveryBenchmark(kafka, s3, work, partitions);
            for (int round = 0; round <= rounds; round++) {
                for (boolean fromSavepoint : new boolean[] {true, false}) {
                    String variant = fromSavepoint ? "from a savepoint" : "from the archive (no state)";
                    Run r = bench.runOnce("recovery-" + (fromSavepoint ? "savepoint" : "archive") + "-" + round, fromSavepoint);
                    System.out.printf("round %d %-28s %s%n", round, variant, r);
                    if (round > 0) {
                        runs.computeIfAbsent(variant, k -> new ArrayList<>()).add(r);
                    }
                }
            }
        }
        write(runs, partitions, rounds);
    }

    private Run runOnce(String name, boolean fromSavepoint) throws Exception {
        kafka.createTopic(name, partitions);
        Preloader.preload(kafka.bootstrapServers(), name, partitions, (long) partitions * RECORDS_PER_PARTITION, i -> null);
        String root = "s3://bench/" + name;
        PositionStore positions = new PositionStore(ArchiveRoot.of(s3.dataDir().resolve("bench").resolve(name).toUri().toString()));

        JobClient first = JobLauncher.environment(ArchiverConfig.of(settings(name, Map.of()))).executeAsync(name);
        await("the first job to archive " + name, () -> caughtUp(positions, name, RECORDS_PER_PARTITION));
        String savepoint = first.stopWithSavepoint(false, work.resolve("savepoints").toUri().toString(), SavepointFormatType.CANONICAL)
                .get(5, TimeUnit.MINUTES);
        Preloader.preload(kafka.bootstrapServers(), name, partitions, partitions, i -> null);
        int filesBefore = ArchiveFiles.listed(ArchiveRoot.of(dataRoot(name))).list().committed().size();

        Map<String, String> extra = new LinkedHashMap<>();
        if (fromSavepoint) {
            extra.put("flink.execution.state-recovery.path", savepoint);
        }
        long leaseStart = System.nanoTime();
        StreamExecutionEnvironment env = JobLauncher.environment(ArchiverConfig.of(settings(name, extra)));
        double leaseWait = (System.nanoTime() - leaseStart) / 1e9;
        long start = System.nanoTime();
        JobClient second = env.executeAsync(name);
        await("a record archived after the restart", () -> {
            try {
                return ArchiveFiles.listed(ArchiveRoot.of(dataRoot(name))).list().committed().size() > filesBefore;
            } catch (Exception e) {
                return false;
            }
        });
        double firstSeconds = (System.nanoTime() - start) / 1e9;
        await("every partition caught up", () -> caughtUp(positions, name, RECORDS_PER_PARTITION + 1));
        double allSeconds = (System.nanoTime() - start) / 1e9;
        second.cancel().get(1, TimeUnit.MINUTES);
        return new Run(firstSeconds, allSeconds, leaseWait);
    }

    private Map<String, String> settings(String name, Map<String, String> extra) {
        Map<String, String> settings = BenchSettings.archiver(kafka.bootstrapServers(), name, name, s3.flinkSettings());
        settings.put("sink.time-partitioning", "none");
        settings.put("checkpoint.interval", "2 s");
        settings.put("fencing.lease-timeout", "4 s");
        settings.put("preflight.timeout", "0 s");
        settings.putAll(extra);
        return BenchSettings.withCommandLine(settings);
    }

    private String dataRoot(String name) {
        return s3.dataDir().resolve("bench").resolve(name).toUri().toString();
    }

    /** Every partition's position record says its next offset is at least {@code next}. */
    private boolean caughtUp(PositionStore positions, String topic, long next) {
        try {
            ArchivePositions read = positions.read();
            for (int p = 0; p < partitions; p++) {
                Optional<PositionRecord> r = read.record(new TopicPartition(topic, p));
                if (r.isEmpty() || r.get().nextOffset() < next) {
                    return false;
                }
            }
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        Instant deadline = Instant.now().plus(DEADLINE);
        while (!condition.getAsBoolean()) {
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException("Timed out after " + DEADLINE + " waiting for " + what);
            }
            Thread.sleep(50);
        }
    }

    private static void write(Map<String, List<Run>> runs, int partitions, int rounds) throws Exception {
        double savepointFirst = median(runs.get("from a savepoint"), true);
        StringBuilder md = new StringBuilder();
        md.append("# Recovery, ").append(LocalDate.now()).append("\n\n")
                .append(String.format("%,d partitions, each with %d archived records and 1 new one; ", partitions, RECORDS_PER_PARTITION))
                .append("Parquet, no time folders, parallelism 2, checkpoints every 2 s, Flink 2.2.0 local MiniCluster (its start included), ")
                .append("Kafka 4.2.0 and S3Proxy in the same JVM")
                .append(RequestCountingBlobStore.latencyMillis() > 0
                        ? " (answering every request " + RequestCountingBlobStore.latencyMillis() + " ms late, a simulated round trip), " : ", ")
                .append(Runtime.getRuntime().availableProcessors())
                .append(" cores. Median of ").append(rounds).append(" rounds after a warm-up (min–max). ")
                .append("Lease wait: the new job waiting for the stopped job's lease to expire (fencing.lease-timeout 4 s), before submission.")
                .append(BenchSettings.described()).append("\n\n")
                .append("| restart | start → first record archived, s | × from savepoint | start → all partitions caught up, s | lease wait, s |\n")
                .append("|---|---|---|---|---|\n");
        StringBuilder csv = new StringBuilder("variant,first_median_s,first_min_s,first_max_s,all_median_s,lease_wait_s\n");
        for (Map.Entry<String, List<Run>> e : runs.entrySet()) {
            List<Run> rs = e.getValue();
            md.append(String.format("| %s | %.2f (%.2f–%.2f) | %.2f | %.2f (%.2f–%.2f) | %.1f |%n", e.getKey(),
                    median(rs, true), min(rs, true), max(rs, true), median(rs, true) / savepointFirst,
                    median(rs, false), min(rs, false), max(rs, false),
                    BenchmarkReport.median(rs.stream().map(Run::leaseWait).toList())));
            csv.append(String.format("%s,%.3f,%.3f,%.3f,%.3f,%.3f%n", e.getKey(), median(rs, true), min(rs, true), max(rs, true),
                    median(rs, false), BenchmarkReport.median(rs.stream().map(Run::leaseWait).toList())));
        }
        Path dir = Path.of("target", "bench");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("recovery.md"), md);
        Files.writeString(dir.resolve("recovery.csv"), csv);
        System.out.println(md);
    }

    private static List<Double> values(List<Run> runs, boolean first) {
        return runs.stream().map(r -> first ? r.first() : r.all()).toList();
    }

    private static double median(List<Run> runs, boolean first) {
        return BenchmarkReport.median(values(runs, first));
    }

    private static double min(List<Run> runs, boolean first) {
        return Collections.min(values(runs, first));
    }

    private static double max(List<Run> runs, boolean first) {
        return Collections.max(values(runs, first));
    }
}
