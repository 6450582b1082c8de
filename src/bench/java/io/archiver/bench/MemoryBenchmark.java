package io.archiver.bench;

import io.archiver.local.EmbeddedKafka;
import io.archiver.local.EmbeddedS3;
import io.archiver.local.SessionCluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.ServerSocket;
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
import java.util.function.ToDoubleFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Memory with a capped heap: the job jar on a real session cluster whose one TaskManager has a 1 GiB heap
 * (2 slots, parallelism 2), archiving a pre-loaded topic as Parquet in hour folders, the record timestamps
 * spread over the last hours so every partition has several time folders open at once. Two cases: 1,000
 * partitions (thousands of open files holding little data each) and 24 partitions with more data (72 open
 * files that could each buffer a 32 MB row group), each on a fresh stack and cluster, with the buffer budget
 * at its default, doubled and with no bound, and with the per-topic layout ({@code bench.memory.variants}: default,
 * 128mb, unbounded, per-topic; also zstd, and fetch4m: the Kafka consumer's larger fetches).
 * Each variant runs the job bounded at the topic's end; the TaskManager's GC log gives peak heap (before a
 * collection), peak live heap (after one), pause time and full collections; the REST API gives the job's
 * duration and, when it fails, why. One warm-up run, then the median (min–max) of the measured rounds.
 * Writes {@code target/bench/memory.md} and {@code .csv}.
 *
 * <p>{@code mvn -q -DskipTests verify exec:exec@bench -Dbench.class=MemoryBenchmark
 * [-Dbench.args="-Dbench.memory.cases=1000:200000,24:1000000 -Dbench.memory.hours=3 -Dbench.memory.variants=default,per-topic
 * -Dbench.rounds=3"]}
 * ({@code cases}: partitions:records, comma-separated)
 */
public final class MemoryBenchmark {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern PAUSE =
            Pattern.compile("Pause (\\S+).*? (\\d+)M->(\\d+)M\\((\\d+)M\\) ([\\d.]+)ms");
    private static final Duration RUN_DEADLINE = Duration.ofMinutes(15);
    private static final Map<String, String> VARIANT_NAMES = Map.of(
            "default", "buffer-memory 64 mb per subtask (default)",
            "128mb", "buffer-memory 128 mb per subtask",
            "unbounded", "no bound (buffer-memory 0)",
            "per-topic", "sink.layout per-topic, buffer-memory 64 mb",
            "zstd", "buffer-memory 64 mb, Parquet zstd",
            "fetch4m", "buffer-memory 64 mb, fetches of 4 MiB per partition, 1 MiB socket buffer");

    private final EmbeddedKafka kafka;
    private final EmbeddedS3 s3;
    private final SessionCluster cluster;
    private final Path gcLog;
    private final String topic;
    private final long records;
    private final long bytes;

    private MemoryBenchmark(EmbeddedKafka kafka, EmbeddedS3 s3, SessionCluster cluster, Path gcLog, String topic,
            long records, long bytes) {
        this.kafka = kafka;
        this.s3 = s3;
        this.cluster = cluster;
        this.gcLog = gcLog;
        this.topic = topic;
        this.records = records;
        this.bytes = bytes;
    }

    /** One run's figures. */
    record Run(boolean finished, String outcome, double seconds, long peakHeapMb, long peakLiveMb, long heapMaxMb,
            double pauseMs, int pauses, int fullGcs, long files) {}

    public static void main(String[] args) throws Exception {
        run();
        System.exit(0);
    }

    /** Runs the benchmark and writes its report under {@code target/bench}. */
    static void run() throws Exception {
        // partitions:records per case: many open files with little data each, and few open files with much
        String cases = System.getProperty("bench.memory.cases", "1000:200000,24:1000000");
        int hours = Integer.getInteger("bench.memory.hours", 3);
        int rounds = Integer.getInteger("bench.rounds", 3);
        StringBuilder md = new StringBuilder("# Memory with a 1 GiB TaskManager heap, " + LocalDate.now() + "\n\n");
        StringBuilder csv = new StringBuilder(
                "partitions,variant,finished_runs,median_s,min_s,max_s,records_per_s,peak_heap_mb,peak_live_mb,gc_pause_ms,gc_share,full_gcs,files\n");
        for (String c : cases.split(",")) {
            String[] pr = c.trim().split(":");
            runCase(Integer.parseInt(pr[0]), Long.parseLong(pr[1]), hours, rounds, md, csv);
        }
        Path dir = Path.of("target", "bench");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("memory.md"), md);
        Files.writeString(dir.resolve("memory.csv"), csv);
        System.out.println(md);
    }

    /** One topic on a fresh stack and session cluster: every variant, {@code rounds} times after a warm-up. */
    private static void runCase(int partitions, long records, int hours, int rounds, StringBuilder md, StringBuilder csv)
            throws Exception {
        Path work = BenchStack.workFolder("memory-bench");
        Path gcLog = work.resolve("taskmanager-gc.log");
        try (EmbeddedS3 s3 = EmbeddedS3.start(work.resolve("s3"), 0);
                EmbeddedKafka kafka = EmbeddedKafka.start(work.resolve("kafka"))) {
            s3.createBucket("bench");
            Map<String, String> settings = new LinkedHashMap<>();
            s3.flinkSettings().forEach(settings::put);
            settings.put("execution.checkpointing.dir", "s3://bench/checkpoints");
            // one TaskManager, 2 slots, JVM heap = 896 MB task + 128 MB framework = 1 GiB
            // 2560m: the JVM overhead Flink derives stays within its range beside a 512 MB metaspace
            settings.put("taskmanager.memory.process.size", "2560m");
            settings.put("taskmanager.memory.task.heap.size", "896m");
            settings.put("taskmanager.memory.framework.heap.size", "128m");
            settings.put("taskmanager.memory.managed.size", "64m");
            settings.put("taskmanager.numberOfTaskSlots", "2");
            // 512 MB as in the runs of docs/benchmarks.md (a finished job no longer keeps its ~27 MB: known limits)
            settings.put("taskmanager.memory.jvm-metaspace.size", "512m");
            settings.put("metrics.reporter.prom.port", freePort() + "-" + (freePort() + 5));
            settings.put("env.java.opts.taskmanager", "-Xlog:gc:file=" + gcLog);
            SessionCluster cluster = new SessionCluster(Path.of("target", "flink", "lib"), Path.of("conf", "flink"),
                    Path.of("target", "plugins"), work.resolve("cluster"), freePort(), settings);
            String topic = "memory-" + partitions;
            kafka.createTopic(topic, partitions);
            long now = System.currentTimeMillis();
            long spread = hours * 3_600_000L;
            long bytes = Preloader.preload(kafka.bootstrapServers(), topic, partitions, records,
                    i -> now - (i * 7919 % spread));
            try {
                cluster.start(1);
                MemoryBenchmark bench = new MemoryBenchmark(kafka, s3, cluster, gcLog, topic, records, bytes);
                write(bench.run(rounds), partitions, records, bytes, hours, rounds, md, csv);
            } finally {
                cluster.stop();
            }
        }
    }

    private Map<String, List<Run>> run(int rounds) throws Exception {
        Map<String, Map<String, String>> all = new LinkedHashMap<>();
        all.put("default", Map.of());
        all.put("128mb", Map.of("sink.parquet.buffer-memory", "128 mb"));
        all.put("unbounded", Map.of("sink.parquet.buffer-memory", "0"));
        all.put("per-topic", Map.of("sink.layout", "per-topic"));
        all.put("zstd", Map.of("sink.parquet.compression", "zstd"));
        all.put("fetch4m", Map.of("kafka.properties.max.partition.fetch.bytes", "4194304", "kafka.properties.receive.buffer.bytes", "1048576"));
        Map<String, Map<String, String>> variants = new LinkedHashMap<>();
        for (String v : System.getProperty("bench.memory.variants", "default,128mb,unbounded,per-topic").split(",")) {
            variants.put(VARIANT_NAMES.get(v.trim()), all.get(v.trim()));
        }
        Map<String, List<Run>> runs = new LinkedHashMap<>();
        for (int round = 0; round <= rounds; round++) {
            for (Map.Entry<String, Map<String, String>> v : variants.entrySet()) {
                String name = "memory-" + v.getKey().replaceAll("[^a-z0-9]+", "-") + "-" + round;
                Run r = runOnce(name, v.getValue());
                System.out.printf("round %d %-48s %s%n", round, v.getKey(), r);
                if (round > 0) {
                    runs.computeIfAbsent(v.getKey(), k -> new ArrayList<>()).add(r);
                }
            }
        }
        return runs;
    }

    private Run runOnce(String name, Map<String, String> extra) throws Exception {
        // the cluster has the S3 server's settings; the job needs none of its own
        Map<String, String> settings = BenchSettings.archiver(kafka.bootstrapServers(), topic, name, Map.of());
        settings.put("sink.format", "parquet");
        settings.put("sink.time-partitioning", "hour");
        settings.put("preflight.timeout", "0 s");
        // bounded at the topic's end, streaming with the default checkpoint interval (30 s)
        settings.put("mode", "batch");
        settings.put("flink.execution.runtime-mode", "STREAMING");
        settings.put("flink.execution.checkpointing.interval", "30 s");
        settings.putAll(extra);
        List<String> args = new ArrayList<>(List.of("run"));
        BenchSettings.withCommandLine(settings).forEach((k, v) -> args.addAll(List.of("-D", k + "=" + v)));

        long gcFrom = Files.exists(gcLog) ? Files.size(gcLog) : 0;
        String jobId = cluster.submit(shadedJar(), args.toArray(String[]::new));
        Instant deadline = Instant.now().plus(RUN_DEADLINE);
        String state;
        while (true) {
            state = cluster.jobStatus(jobId);
            if (List.of("FINISHED", "FAILED", "CANCELED").contains(state)) {
                break;
            }
            if (Instant.now().isAfter(deadline)) {
                cluster.cancel(jobId);
                state = "TIMED_OUT";
                break;
            }
            Thread.sleep(500);
        }
        JsonNode job = JSON.readTree(cluster.get("/jobs/" + jobId));
        double seconds = job.path("duration").asLong() / 1000.0;
        String outcome = state;
        if (!"FINISHED".equals(state)) {
            String exceptions = cluster.get("/jobs/" + jobId + "/exceptions");
            String trace = JSON.readTree(exceptions).path("exceptionHistory").path("entries").path(0).path("stacktrace").asText("");
            // the deepest cause names what went wrong
            String cause = trace.lines().filter(l -> l.startsWith("Caused by: ")).reduce((a, b) -> b)
                    .orElse(trace.lines().findFirst().orElse("")).replaceFirst("^Caused by: ", "");
            outcome = state + ": " + (cause.length() > 120 ? cause.substring(0, 120) + "…" : cause);
        }
        Path data = s3.dataDir().resolve("bench").resolve(name);
        long files;
        try (Stream<Path> walk = Files.walk(data)) {
            files = walk.filter(p -> p.toString().endsWith(".parquet")).count();
        } catch (IOException e) {
            files = 0;
        }
        Run gc = gcSince(gcFrom);
        // drop the archive: every run reads the same topic into its own prefix
        if (Files.exists(data)) {
            try (Stream<Path> walk = Files.walk(data)) {
                walk.sorted(Collections.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        return new Run("FINISHED".equals(state), outcome, seconds, gc.peakHeapMb(), gc.peakLiveMb(), gc.heapMaxMb(),
                gc.pauseMs(), gc.pauses(), gc.fullGcs(), files);
    }

    /** Heap figures from the TaskManager's GC log lines written since {@code offset}. */
    private Run gcSince(long offset) throws IOException {
        long peak = 0;
        long live = 0;
        long max = 0;
        double pauseMs = 0;
        int pauses = 0;
        int full = 0;
        String log = Files.exists(gcLog) ? Files.readString(gcLog) : "";
        for (String line : log.substring((int) Math.min(offset, log.length())).split("\n")) {
            Matcher m = PAUSE.matcher(line);
            if (m.find()) {
                pauses++;
                full += m.group(1).equals("Full") ? 1 : 0;
                peak = Math.max(peak, Long.parseLong(m.group(2)));
                live = Math.max(live, Long.parseLong(m.group(3)));
                max = Math.max(max, Long.parseLong(m.group(4)));
                pauseMs += Double.parseDouble(m.group(5));
            }
        }
        return new Run(true, "", 0, peak, live, max, pauseMs, pauses, full, 0);
    }

    private static Path shadedJar() throws IOException {
        try (Stream<Path> jars = Files.list(Path.of("target"))) {
            return jars.filter(p -> p.getFileName().toString().matches("kafka-s3-archiver-.*\\.jar"))
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("No job jar in target/: run mvn package first"));
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static void write(Map<String, List<Run>> runs, int partitions, long records, long bytes, int hours, int rounds,
            StringBuilder md, StringBuilder csv) {
        md.append(String.format("## %,d partitions\n\n%,d records of 1 KiB (%.0f MB) over %,d partitions, timestamps spread over %d hours, ",
                        partitions, records, bytes / 1e6, partitions, hours))
                .append("Parquet (snappy) in hour folders, parallelism 2 on one TaskManager with a 1 GiB heap (G1), checkpoints every 30 s, ")
                .append("bounded at the topic's end; Flink 2.2.0 session cluster, Kafka 4.2.0 and S3Proxy in another JVM, ")
                .append(Runtime.getRuntime().availableProcessors()).append(" cores. Median of ").append(rounds)
                .append(" rounds after a warm-up (min–max). Peak heap: heap used before a collection; live: after one; ")
                .append("GC share: pause time / job time.\n\n")
                .append("| variant | outcome | seconds | records/s | peak heap MB | peak live MB | GC pauses | GC share | full GCs | files |\n")
                .append("|---|---|---|---|---|---|---|---|---|---|\n");
        for (Map.Entry<String, List<Run>> e : runs.entrySet()) {
            List<Run> all = e.getValue();
            // figures of the runs that finished; the others are named in the outcome
            List<Run> rs = all.stream().filter(Run::finished).toList();
            long finished = rs.size();
            String outcome = finished == all.size() ? "finished " + finished + "/" + all.size()
                    : finished + "/" + all.size() + " finished; " + all.stream().filter(r -> !r.finished()).map(Run::outcome).distinct()
                            .reduce((a, b) -> a + "; " + b).orElse("");
            if (rs.isEmpty()) {
                md.append("| ").append(e.getKey()).append(" | ").append(outcome).append(" | | | | | | | | |\n");
                csv.append(partitions).append(',').append(e.getKey()).append(",0,,,,,,,,,,\n");
                continue;
            }
            double s = median(rs, Run::seconds);
            md.append(String.format("| %s | %s | %s | %,.0f | %s | %s | %s | %.1f %% | %s | %s |%n",
                    e.getKey(), outcome, spread(rs, Run::seconds, "%.1f"), records / s,
                    spread(rs, r -> r.peakHeapMb(), "%.0f"), spread(rs, r -> r.peakLiveMb(), "%.0f"),
                    spread(rs, r -> r.pauses(), "%.0f"), 100 * median(rs, r -> r.pauseMs() / 1000 / Math.max(0.001, r.seconds())),
                    spread(rs, r -> r.fullGcs(), "%.0f"), spread(rs, r -> r.files(), "%.0f")));
            csv.append(String.format("%d,%s,%d,%.2f,%.2f,%.2f,%.0f,%.0f,%.0f,%.0f,%.4f,%.0f,%.0f%n", partitions, e.getKey(), finished, s,
                    min(rs, Run::seconds), max(rs, Run::seconds), records / s, median(rs, r -> r.peakHeapMb()),
                    median(rs, r -> r.peakLiveMb()), median(rs, Run::pauseMs),
                    median(rs, r -> r.pauseMs() / 1000 / Math.max(0.001, r.seconds())), median(rs, r -> r.fullGcs()),
                    median(rs, r -> r.files())));
        }
        md.append('\n');
    }

    private static String spread(List<Run> runs, ToDoubleFunction<Run> f, String format) {
        return String.format(format + " (" + format + "–" + format + ")", median(runs, f), min(runs, f), max(runs, f));
    }

    private static double median(List<Run> runs, ToDoubleFunction<Run> f) {
        List<Double> values = new ArrayList<>();
        runs.forEach(r -> values.add(f.applyAsDouble(r)));
        return BenchmarkReport.median(values);
    }

    private static double min(List<Run> runs, ToDoubleFunction<Run> f) {
        return runs.stream().mapToDouble(f).min().orElse(0);
    }

    private static double max(List<Run> runs, ToDoubleFunction<Run> f) {
        return runs.stream().mapToDouble(f).max().orElse(0);
    }
}
