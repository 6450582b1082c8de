package io.archiver.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Every benchmark, one after the other, and one report of them all: {@code target/bench/report.md} (the
 * machine, the versions, then each benchmark's table), beside each benchmark's own Markdown and CSV and the
 * throughput chart (PNG). A benchmark that fails is named in the report and the others still run.
 *
 * <p>{@code mvn -q -DskipTests verify exec:exec@bench} (verify prepares the session cluster the memory
 * benchmark runs on). Sizes: {@code -Dbench.args="-Dbench.rounds=3 -Dbench.throughput.records=2000000 ..."},
 * see each benchmark.
 */
public final class BenchmarkSuite {

    private interface Benchmark {
        void run() throws Exception;
    }

    public static void main(String[] args) throws Exception {
        Map<String, Benchmark> benchmarks = new LinkedHashMap<>();
        benchmarks.put("throughput", ThroughputBenchmark::run);
        benchmarks.put("memory", MemoryBenchmark::run);
        benchmarks.put("latency", LatencyBenchmark::run);
        benchmarks.put("recovery", RecoveryBenchmark::run);
        benchmarks.put("startup", StartupBenchmark::run);
        benchmarks.put("audit", AuditBenchmark::run);
        benchmarks.put("restore", RestoreBenchmark::run);
        benchmarks.put("table-commit", TableCommitBenchmark::run);
        benchmarks.put("compaction", CompactionBenchmark::run);
        benchmarks.put("erase", EraseBenchmark::run);
        benchmarks.put("cluster-soak", ClusterSoakBenchmark::run);
        Path dir = Path.of("target", "bench");
        Files.createDirectories(dir);
        StringBuilder report = new StringBuilder();
        report.append("# kafka-s3-archiver benchmarks, ").append(LocalDateTime.now().truncatedTo(ChronoUnit.MINUTES)).append("\n\n")
                .append("Machine: ").append(Runtime.getRuntime().availableProcessors()).append(" cores, ")
                .append(Runtime.getRuntime().maxMemory() >> 20).append(" MB heap for the harness, ")
                .append(System.getProperty("os.name")).append(' ').append(System.getProperty("os.arch")).append(", Java ")
                .append(System.getProperty("java.version")).append(" (").append(System.getProperty("java.vm.name")).append(")\n")
                .append("Versions: Flink 2.2.0, flink-connector-kafka 5.0.0-2.2, Kafka 4.2.0 broker (KRaft, embedded), ")
                .append("S3Proxy (filesystem backend), Parquet ").append(org.apache.parquet.Version.VERSION_NUMBER).append(".\n")
                .append("Absolute figures drift on a shared machine: read the ratios against the baselines measured in the same run.\n\n");
        for (Map.Entry<String, Benchmark> b : benchmarks.entrySet()) {
            long start = System.nanoTime();
            Path section = dir.resolve(b.getKey() + ".md");
            Files.deleteIfExists(section);
            try {
                b.getValue().run();
            } catch (Exception | AssertionError e) {
                report.append("## ").append(b.getKey()).append(": FAILED\n\n").append(e).append("\n\n");
                e.printStackTrace();
                continue;
            }
            String body = Files.readString(section).replaceFirst("^# ", "## ");
            report.append(body.startsWith("## ") ? body : "## " + b.getKey() + "\n\n" + body)
                    .append(String.format("%n(%s benchmark: %d min)%n%n", b.getKey(),
                            Duration.ofNanos(System.nanoTime() - start).toMinutes()));
        }
        Files.writeString(dir.resolve("report.md"), report);
        System.out.println(report);
        System.exit(0);
    }
}
