package io.archiver.bench;

import io.archiver.archive.ArchiveFileReader;
import io.archiver.config.ArchiverConfig;
import io.archiver.config.RestoreOptions;
import io.archiver.job.JobLauncher;
import io.archiver.local.EmbeddedKafka;
import io.archiver.local.EmbeddedS3;
import io.archiver.local.EmbeddedSchemaRegistry;
import io.archiver.record.PayloadFormats;
import io.archiver.restore.RestoreJob;
import io.archiver.restore.plan.RestorePlan;
import io.archiver.restore.plan.RestoreSelection;
import io.archiver.table.TableArchiveFiles;

import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.tools.ProducerPerformance;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Cost of {@code restore}: {@code bench.restore.records} (default 2,000,000) records of 1 KiB over 8 partitions,
 * archived once as Parquet with zstd and once as JSON Lines, restored into fresh topics by the exactly-once
 * restore job (parallelism 2, checkpoints every {@code restore.checkpoint-interval}'s default), side by side in one
 * run with the limit, Kafka's own {@code ProducerPerformance} writing as many 1 KiB records (plain with acks=all, and
 * in transactions as long as the restore's), and with reading the archive alone (the restore's input). Median of the rounds (min–max)
 * after one warm-up round; the heap peak of this JVM (the MiniCluster included) per variant. Writes {@code
 * target/bench/restore.md} and {@code .csv}.
 *
 * <p>{@code mvn -q -DskipTests package exec:exec@bench -Dbench.class=RestoreBenchmark
 * [-Dbench.args="-Dbench.restore.records=2000000 -Dbench.rounds=3"]}; {@code -Dbench.restore.intervals=5s,10s,30s} restores
 * with each checkpoint interval (default: {@code restore.checkpoint-interval}'s default). {@code
 * -Dbench.restore.payload=avro}: Avro values (about 1 KiB, {@link AvroOrders}) archived as Parquet with zstd twice, kept
 * as bytes and in typed columns that rebuild them ({@code sink.parquet.decoded-payload-bytes: rebuild}), instead of
 * random bytes archived as Parquet and JSON Lines.
 */
public final class RestoreBenchmark {

    private static final int PARTITIONS = 8;
    private static final String SOURCE = "source";
    /** The restore's checkpoint interval (its default), and the producer tool's transactions as long. */
    private static final int TRANSACTION_MS = (int) RestoreOptions.RESTORE_CHECKPOINT_INTERVAL.defaultValue().toMillis();
    /** Topics a measured call wrote, deleted after it (each holds the whole data set). */
    private static final List<String> written = new ArrayList<>();
    private static EmbeddedKafka kafka;

    private interface Variant {
        /** Runs once (a fresh target per call); returns the records it wrote or read. */
        long run(int call) throws Exception;
    }

    private record Result(String name, long records, double median, double min, double max, long heapPeakMb) {}

    /** An archive of the source topic, and what the report calls it. */
    private record Archive(String name, ArchiverConfig config) {}

    public static void main(String[] args) throws Exception {
        run();
        System.exit(0);
    }

    /** Runs the benchmark and writes its report under {@code target/bench}. */
    static void run() throws Exception {
        long records = Long.getLong("bench.restore.records", 2_000_000);
        int rounds = Integer.getInteger("bench.rounds", 3);
        java.nio.file.Path work = BenchStack.workFolder("restore-bench");
        boolean avro = System.getProperty("bench.restore.payload", "bytes").equals("avro");
        try (BenchStack stack = BenchStack.start(work); EmbeddedSchemaRegistry registry = avro ? EmbeddedSchemaRegistry.start() : null) {
            EmbeddedS3 s3 = stack.s3();
            EmbeddedKafka kafka = stack.kafka();
            RestoreBenchmark.kafka = kafka;
            String bootstrap = kafka.bootstrapServers();
            kafka.createTopic(SOURCE, PARTITIONS);
            long bytes;
            List<Archive> archives = new ArrayList<>();
            if (avro) {
                int id = registry.register(SOURCE + "-value", "AVRO", AvroOrders.SCHEMA.toString());
                bytes = Preloader.preload(bootstrap, SOURCE, PARTITIONS, records, i -> null, (n, random) -> AvroOrders.encode(id, n, random));
                archives.add(new Archive("Parquet zstd, Avro values as bytes",
                        archive(bootstrap, s3, "restore-avro-bytes", Map.of("sink.parquet.compression", "zstd"))));
                archives.add(new Archive("Parquet zstd, Avro values typed (bytes rebuilt)", archive(bootstrap, s3, "restore-avro-typed",
                        Map.of("sink.parquet.compression", "zstd", "record.value.format", "avro", "schema-registry.url", registry.url(),
                                "sink.parquet.decoded-payload-bytes", "rebuild"))));
            } else {
                bytes = Preloader.preload(bootstrap, SOURCE, PARTITIONS, records, i -> null);
                archives.add(new Archive("Parquet zstd", archive(bootstrap, s3, "restore-parquet", Map.of("sink.parquet.compression", "zstd"))));
                archives.add(new Archive("JSON Lines", archive(bootstrap, s3, "restore-jsonl", Map.of("sink.format", "jsonl"))));
            }

            Map<String, Variant> variants = new LinkedHashMap<>();
            variants.put("limit: Kafka ProducerPerformance, acks=all", call -> producerPerformance(kafka, records, "perf-" + call, false));
            variants.put("limit: ProducerPerformance, transactions of " + TRANSACTION_MS / 1000 + " s",
                    call -> producerPerformance(kafka, records, "perf-tx-" + call, true));
            for (Archive a : archives) {
                variants.put("archive read alone: " + a.name(), call -> read(a.config()));
            }
            for (String interval : System.getProperty("bench.restore.intervals", TRANSACTION_MS / 1000 + "s").split(",")) {
                String every = interval.trim();
                for (int i = 0; i < archives.size(); i++) {
                    Archive a = archives.get(i);
                    String target = "restore-" + i + "-";
                    variants.put("restore from " + a.name() + " (exactly once, checkpoints every " + every + ")",
                            call -> restore(kafka, a.config(), target + call + "-" + every, every));
                }
            }
            List<Result> results = new ArrayList<>();
            for (Map.Entry<String, Variant> v : variants.entrySet()) {
                results.add(measure(v.getKey(), rounds, v.getValue()));
            }
            write(results, records, bytes, rounds, archives.stream().map(Archive::name).toList());
        }
    }

    private static ArchiverConfig archive(String bootstrap, EmbeddedS3 s3, String name, Map<String, String> format) throws Exception {
        Map<String, String> settings = BenchSettings.archiver(bootstrap, SOURCE, name, s3.flinkSettings());
        settings.put("mode", "batch");
        settings.put("checkpoint.interval", TRANSACTION_MS + " ms");
        settings.putAll(format);
        ArchiverConfig config = ArchiverConfig.of(BenchSettings.withCommandLine(settings));
        long start = System.nanoTime();
        JobLauncher.environment(config).executeAsync("archive " + name).getJobExecutionResult().get(30, TimeUnit.MINUTES);
        System.out.printf("Archived %s in %.0f s%n", name, (System.nanoTime() - start) / 1e9);
        return config;
    }

    /** Kafka's producer tool writing {@code records} values of 1 KiB to a fresh topic. */
    private static long producerPerformance(EmbeddedKafka kafka, long records, String topic, boolean transactions) throws Exception {
        kafka.createTopic(topic, PARTITIONS);
        written.add(topic);
        List<String> args = new ArrayList<>(List.of("--topic", topic, "--num-records", Long.toString(records),
                "--record-size", Integer.toString(Preloader.VALUE_BYTES), "--throughput", "-1"));
        if (transactions) {
            args.addAll(List.of("--transactional-id", topic, "--transaction-duration-ms", Integer.toString(TRANSACTION_MS)));
        }
        args.addAll(List.of("--producer-props", "bootstrap.servers=" + kafka.bootstrapServers(), "acks=all", "linger.ms=20",
                "batch.size=524288"));
        if (!transactions) {
            // the embedded broker has handed one producer id to two idempotent producers (OutOfOrderSequenceException
            // and a stalled producer, as in TestRecords): the plain limit is acks=all without idempotence
            args.addAll(List.of("enable.idempotence=false", "max.in.flight.requests.per.connection=5"));
        }
        PrintStream out = System.out;
        System.setOut(new PrintStream(java.io.OutputStream.nullOutputStream())); // its progress lines
        try {
            ProducerPerformance.main(args.toArray(String[]::new));
        } finally {
            System.setOut(out);
        }
        return records;
    }

    /** Every record of the archive read as the restore reads it, in one thread, file after file. */
    private static long read(ArchiverConfig config) throws Exception {
        ArchiveFileReader reader = new ArchiveFileReader(PayloadFormats.of(config));
        RestorePlan plan = RestorePlan.of(TableArchiveFiles.of(config), RestoreSelection.parse(null, null, null), reader);
        long[] n = {0};
        for (RestorePlan.PlannedFile f : plan.files()) {
            reader.read(new Path(f.path()), r -> n[0]++);
        }
        return n[0];
    }

    /** The restore job writing the whole archive into a fresh topic, with checkpoints {@code every} (a duration). */
    private static long restore(EmbeddedKafka kafka, ArchiverConfig config, String target, String every) throws Exception {
        kafka.createTopic(target, PARTITIONS);
        written.add(target);
        RestoreSelection selection = RestoreSelection.parse(null, SOURCE + "=" + target, null);
        RestorePlan plan = RestorePlan.of(TableArchiveFiles.of(config), selection, new ArchiveFileReader(PayloadFormats.of(config)));
        Map<String, String> settings = new LinkedHashMap<>(config.toMap());
        settings.put("mode", "streaming");
        settings.put("restore.checkpoint-interval", every);
        ArchiverConfig restoreConfig = ArchiverConfig.of(settings);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(RestoreJob.settings(restoreConfig));
        RestoreJob.build(env, restoreConfig, plan, selection, false, new PrintWriter(new StringWriter()));
        env.executeAsync("restore " + target).getJobExecutionResult().get(1, TimeUnit.HOURS);
        return plan.files().stream().mapToLong(RestorePlan.PlannedFile::records).sum();
    }

    private static Result measure(String name, int rounds, Variant variant) throws Exception {
        variant.run(0);
        deleteWritten();
        List<Double> seconds = new ArrayList<>();
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        AtomicLong peak = new AtomicLong();
        Thread sampler = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                peak.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "heap-sampler");
        System.gc();
        sampler.setDaemon(true);
        sampler.start();
        long records = 0;
        for (int r = 1; r <= rounds; r++) {
            long start = System.nanoTime();
            records = variant.run(r);
            seconds.add((System.nanoTime() - start) / 1e9);
            deleteWritten();
        }
        sampler.interrupt();
        Collections.sort(seconds);
        Result result = new Result(name, records, seconds.get(seconds.size() / 2), seconds.get(0), seconds.get(seconds.size() - 1),
                peak.get() >> 20);
        System.out.printf("%s: %.2f s (%.2f-%.2f), %,d records, heap peak %d MB%n", name, result.median, result.min, result.max,
                records, result.heapPeakMb);
        return result;
    }

    private static void deleteWritten() throws Exception {
        if (!written.isEmpty()) {
            try (Admin admin = kafka.admin()) {
                admin.deleteTopics(written).all().get(1, TimeUnit.MINUTES);
            }
            written.clear();
        }
    }

    private static void write(List<Result> results, long records, long bytes, int rounds, List<String> archives) throws Exception {
        Result limit = results.get(0);
        StringBuilder md = new StringBuilder();
        StringBuilder csv = new StringBuilder("variant,records,seconds_median,seconds_min,seconds_max,rate_vs_limit,heap_peak_mb\n");
        md.append("# Restore, ").append(LocalDate.now()).append("\n\n")
                .append(String.format("%,d records (%,d bytes of keys and values of about 1 KiB, 2 headers each) over %d partitions, "
                        + "archived as %s, restored by the exactly-once restore job (parallelism 2, checkpoints every %d s) into fresh "
                        + "topics. ", records, bytes, PARTITIONS, String.join(" and as ", archives), TRANSACTION_MS / 1000))
                .append(Runtime.getRuntime().availableProcessors()).append(" cores, Java ").append(System.getProperty("java.version"))
                .append(". Median of ").append(rounds).append(" rounds after one warm-up (min–max); heap peak of the benchmark's JVM "
                        + "(the MiniCluster's TaskManagers included) over the measured rounds.").append(BenchSettings.described())
                .append("\n\n| variant | seconds | records/s | rate × limit | heap peak MB |\n|---|---|---|---|---|\n");
        for (Result r : results) {
            md.append(String.format("| %s | %.2f (%.2f–%.2f) | %,.0f | %.2f | %d |%n", r.name, r.median, r.min, r.max,
                    r.records / r.median, limit.median / r.median, r.heapPeakMb));
            csv.append(String.format("%s,%d,%.4f,%.4f,%.4f,%.4f,%d%n", r.name, r.records, r.median, r.min, r.max,
                    limit.median / r.median, r.heapPeakMb));
        }
        java.nio.file.Path dir = java.nio.file.Path.of("target", "bench");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("restore.md"), md);
        Files.writeString(dir.resolve("restore.csv"), csv);
        System.out.println(md);
    }
}
