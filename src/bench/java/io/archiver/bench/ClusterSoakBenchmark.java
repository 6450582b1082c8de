package io.archiver.bench;

import io.archiver.archive.VerificationReport;
import io.archiver.config.SinkLayout;
import io.archiver.local.KafkaProcessCluster;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;
import io.archiver.table.TableArchiveFiles;
import io.archiver.testutils.ArchiveAssertions;
import io.archiver.testutils.Await;
import io.archiver.testutils.ConnectionResettingProxy;
import io.archiver.testutils.ExpectedOffsets;
import io.archiver.testutils.FaultScenario;
import io.archiver.testutils.SharedStack;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.IntFunction;

/**
 * The long soak of a production-shaped cluster: for {@code soak.minutes} (60) a seeded random schedule of every fault
 * kind of the Kafka cluster, the S3 store and the Flink cluster hits three jobs that archive while records keep
 * arriving, then each archive is checked record by record against its topic's read_committed truth, both ways.
 *
 * <p>Kafka is three brokers and a KRaft controller, each a JVM of its own ({@link KafkaProcessCluster}: replication
 * factor 3, {@code min.insync.replicas} 2); S3, Flink (a MiniCluster of two TaskManagers) and the Schema Registry are
 * the test suite's shared stack, its S3 objects reached through the connection-resetting proxy. Three topics of
 * {@value FaultScenario#PARTITIONS} partitions, each with plain records and transactions (a third of them aborted) and
 * each archived by a job of its own: one per layout with JSON values, and one of Avro values through the registry,
 * archived into typed columns with the values left to them ({@code sink.parquet.decoded-payload-bytes: rebuild}), so its
 * byte-for-byte check proves the typed columns too. The jobs restart as a production job configured so would:
 * {@code fixed-delay}, 1 s, attempts enough for the hour.
 *
 * <p>After each fault, the run measures its <em>catch-up</em>: from the moment the fault is over until every record
 * committed to Kafka by then is in every archive: each archive's position records (written with each commit) lie beyond
 * the last record its producer knew committed in each partition. The same figure without a fault ({@code NONE}, drawn as one more kind)
 * is the baseline of the same run. Report: {@code target/bench/cluster-soak.md}.
 *
 * <p>{@code mvn -q -DskipTests verify exec:exec@bench -Dbench.class=ClusterSoakBenchmark
 * -Dbench.args="-Dsoak.minutes=60 -Dsoak.rate=250 -Dsoak.seed=N"} (rate: records a second per topic; {@code -Dsoak.kinds=LEADER_KILLED,S3_STALL}
 * draws from these kinds only).
 */
public final class ClusterSoakBenchmark {

    enum Fault {
        NONE("no fault: the baseline"),
        LEADER_KILLED("the leader of an archived partition killed (SIGKILL), back after 5 to 20 s"),
        CONTROLLED_SHUTDOWN("a broker shut down (leadership moved first), back after 5 to 20 s"),
        ROLLING_RESTART("every broker in turn shut down and started again, each back in sync before the next"),
        S3_SLOWDOWN_BURSTS("503 SlowDown for 2 s of every 5 s, for 20 s"),
        S3_SLOWDOWN_OUTLASTING("503 SlowDown for 70 s: longer than the retries last, the jobs fail over"),
        S3_STALL("every S3 request served 2 s late, for 30 s"),
        S3_CONNECTION_RESETS("6 part uploads' connections reset after their first 100 bytes"),
        S3_ERRORS("every S3 request answered 500 or 503 for 2 to 4 s"),
        S3_RESTART("the S3 server stopped, started again after 1 to 4 s"),
        COMMIT_ANSWER_LOST("1 to 3 answers to CompleteMultipartUpload lost after the upload completed"),
        TASK_MANAGERS_KILLED("both TaskManagers killed, fresh ones started"),
        CANCEL_AND_RESTORE("one job cancelled and started again from its latest retained checkpoint"),
        SAVEPOINT_AND_RESCALE("one job stopped with a savepoint and started again from it with parallelism 1 or 2");

        final String what;

        Fault(String what) {
            this.what = what;
        }
    }

    private static final Duration IN_SYNC = Duration.ofMinutes(2);

    /** One fault of the run: when it began (s into the run), how long it lasted and the catch-up after it (ms). */
    private record Injected(Fault fault, String detail, long atSecond, long faultMillis, long catchUpMillis) {}

    /** One archive's verdict. */
    private record Verdict(String name, FaultScenario scenario, List<ArchiveRecord> inKafka, long aborted, VerificationReport report,
            ExpectedOffsets comparison) {}

    private ClusterSoakBenchmark() {}

    public static void main(String[] args) throws Exception {
        run();
        System.exit(0);
    }

    static void run() throws Exception {
        long seed = Long.getLong("soak.seed", System.nanoTime());
        int minutes = Integer.getInteger("soak.minutes", 60);
        int rate = Integer.getInteger("soak.rate", 250);
        List<Fault> kinds = System.getProperty("soak.kinds", "").isBlank() ? List.of(Fault.values())
                : java.util.Arrays.stream(System.getProperty("soak.kinds").split(",")).map(k -> Fault.valueOf(k.trim())).toList();
        System.out.println("Cluster soak seed " + seed + " (again: -Dsoak.seed=" + seed + "), " + minutes + " min, " + rate + " records/s per topic");
        Random random = new Random(seed);
        Path work = BenchStack.workFolder("cluster-soak");
        SharedStack stack = SharedStack.startAlone();
        Thread stopHalfway = null;
        try (KafkaProcessCluster kafka = KafkaProcessCluster.start(Files.createDirectories(work.resolve("kafka")), 3)) {
            // a run stopped halfway (Ctrl-C) leaves no broker, controller or registry process behind
            stopHalfway = new Thread(() -> {
                kafka.close();
                closeQuietly(stack);
            }, "cluster-soak-stop");
            Runtime.getRuntime().addShutdownHook(stopHalfway);
            Map<String, String> common = Map.of("parallelism", "2", "checkpoint.interval", "3 s",
                    "fencing.lease-timeout", "6 s", "restart.strategy", "fixed-delay", "restart.attempts", "10000", "restart.delay", "1 s");
            int records = rate * 60 * minutes * 2; // more than the run can send: the producers are stopped when it ends
            Map<String, FaultScenario> scenarios = new LinkedHashMap<>();
            Map<String, Integer> parallelism = new HashMap<>();
            try {
                for (SinkLayout layout : SinkLayout.values()) {
                    scenarios.put(layout.configName(), FaultScenario.start(kafka, SharedStack.RESETS_BUCKET, "cluster-soak", records, rate,
                            with(common, Map.of("sink.layout", layout.configName())), null));
                }
                Function<String, IntFunction<byte[]>> avro = topic -> {
                    int id = register(stack, topic);
                    return i -> AvroOrders.encode(id, i, new Random(i));
                };
                scenarios.put("avro, typed columns", FaultScenario.start(kafka, SharedStack.RESETS_BUCKET, "cluster-soak-avro", records, rate,
                        with(common, Map.of("sink.layout", SinkLayout.PER_PARTITION.configName(), "record.value.format", "avro",
                                "schema-registry.url", stack.registry().url(), "sink.parquet.decoded-payload-bytes", "rebuild")), avro));
                scenarios.keySet().forEach(name -> parallelism.put(name, 2));

                List<Injected> injected = new ArrayList<>();
                long started = System.nanoTime();
                long end = started + TimeUnit.MINUTES.toNanos(minutes);
                Map<FaultScenario, Map<Integer, Long>> progress = new HashMap<>();
                scenarios.values().forEach(s -> progress.put(s, Map.of()));
                while (System.nanoTime() < end) {
                    for (Map.Entry<FaultScenario, Map<Integer, Long>> p : progress.entrySet()) {
                        p.getKey().awaitPositionsBeyond(p.getValue()); // each job made progress since the last fault
                    }
                    Thread.sleep(10_000 + random.nextInt(20_000)); // the quiet time between two faults
                    Fault fault = kinds.get(random.nextInt(kinds.size()));
                    long at = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
                    long faultStart = System.nanoTime();
                    String detail = inject(fault, random, stack, kafka, scenarios, parallelism);
                    long faultMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - faultStart);
                    long over = System.nanoTime();
                    for (FaultScenario s : scenarios.values()) {
                        progress.put(s, s.lastCommittedOffsets());
                    }
                    for (Map.Entry<FaultScenario, Map<Integer, Long>> p : progress.entrySet()) {
                        p.getKey().awaitPositionsBeyond(p.getValue());
                    }
                    Injected i = new Injected(fault, detail, at, faultMillis, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - over));
                    injected.add(i);
                    System.out.printf("Cluster soak: %s at %d s (%s): %d ms, caught up %d ms after%n", fault, at, detail, i.faultMillis(), i.catchUpMillis());
                }
                List<Verdict> verdicts = new ArrayList<>();
                for (FaultScenario s : scenarios.values()) {
                    s.stopProducing();
                }
                for (Map.Entry<String, FaultScenario> e : scenarios.entrySet()) {
                    verdicts.add(verdict(stack, e.getKey(), e.getValue()));
                }
                String report = report(seed, minutes, rate, injected, verdicts, TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
                System.out.println(report);
                Path dir = Files.createDirectories(Path.of("target", "bench"));
                Files.writeString(dir.resolve("cluster-soak.md"), report);
                for (Verdict v : verdicts) {
                    ArchiveAssertions.assertExactlyOnce(v.scenario().config().sinkPath(), PayloadFormats.of(v.scenario().config()),
                            v.inKafka());
                }
            } finally {
                for (FaultScenario s : scenarios.values()) {
                    s.close();
                }
            }
        } finally {
            boolean stoppedHalfway = false;
            try {
                if (stopHalfway != null) {
                    Runtime.getRuntime().removeShutdownHook(stopHalfway); // a run that ends stops the stack itself
                }
            } catch (IllegalStateException shuttingDown) {
                stoppedHalfway = true; // the hook stops the stack
            }
            if (!stoppedHalfway) {
                stack.close();
            }
        }
    }

    private static void closeQuietly(SharedStack stack) {
        try {
            stack.close();
        } catch (Exception e) {
            System.err.println("Cluster soak: stopping the stack: " + e);
        }
    }

    /** The Avro schema registered for {@code topic}'s values (TopicNameStrategy), as its producer would. */
    private static int register(SharedStack stack, String topic) {
        try {
            return stack.registry().register(topic + "-value", "AVRO", AvroOrders.SCHEMA.toString());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static Map<String, String> with(Map<String, String> common, Map<String, String> more) {
        Map<String, String> settings = new HashMap<>(common);
        settings.putAll(more);
        return settings;
    }

    /** Injects {@code fault} and returns once it is over (healed, brokers back in sync, jobs started again). */
    private static String inject(Fault fault, Random random, SharedStack stack, KafkaProcessCluster kafka,
            Map<String, FaultScenario> scenarios, Map<String, Integer> parallelism) throws Exception {
        List<String> names = new ArrayList<>(scenarios.keySet());
        String one = names.get(random.nextInt(names.size()));
        FaultScenario scenario = scenarios.get(one);
        switch (fault) {
            case NONE:
                return "";
            case LEADER_KILLED: {
                int partition = random.nextInt(FaultScenario.PARTITIONS);
                int leader = kafka.leaderOf(scenario.topic(), partition);
                kafka.kill(leader);
                Thread.sleep(5_000 + random.nextInt(15_000)); // the fault itself: the broker is down
                kafka.restart(leader);
                kafka.awaitFullyReplicated(IN_SYNC);
                return "broker " + leader + ", leader of " + scenario.topic() + "-" + partition;
            }
            case CONTROLLED_SHUTDOWN: {
                List<Integer> brokers = new ArrayList<>(kafka.brokers());
                int broker = brokers.get(random.nextInt(brokers.size()));
                kafka.shutdown(broker);
                Thread.sleep(5_000 + random.nextInt(15_000)); // the fault itself: the broker is down
                kafka.restart(broker);
                kafka.awaitFullyReplicated(IN_SYNC);
                return "broker " + broker;
            }
            case ROLLING_RESTART:
                for (int broker : kafka.brokers()) {
                    kafka.shutdown(broker);
                    kafka.restart(broker);
                    kafka.awaitFullyReplicated(IN_SYNC);
                }
                return "brokers " + kafka.brokers();
            case S3_SLOWDOWN_BURSTS:
                scenarios.values().forEach(s -> s.s3Faults().slowDownBursts(Duration.ofSeconds(2), Duration.ofSeconds(3), Duration.ofSeconds(20)));
                awaitS3Served(scenarios);
                return "";
            case S3_SLOWDOWN_OUTLASTING:
                scenarios.values().forEach(s -> s.s3Faults().slowDownBursts(Duration.ofSeconds(70), Duration.ZERO, Duration.ofSeconds(70)));
                awaitS3Served(scenarios);
                return "";
            case S3_STALL:
                scenarios.values().forEach(s -> s.s3Faults().stall(Duration.ofSeconds(2), Duration.ofSeconds(30)));
                awaitS3Served(scenarios);
                return "";
            case S3_CONNECTION_RESETS: {
                ConnectionResettingProxy proxy = stack.connectionResets();
                int before = proxy.resets();
                proxy.resetNextPartUploads(6, 100);
                try {
                    Await.until("6 part uploads cut by a reset", Duration.ofMinutes(2), () -> proxy.resets() >= before + 6);
                } finally {
                    proxy.heal();
                }
                return "";
            }
            case S3_ERRORS: {
                int status = random.nextBoolean() ? 500 : 503;
                Duration length = Duration.ofSeconds(2 + random.nextInt(3));
                scenarios.values().forEach(s -> s.s3Faults().outage(status, length));
                Await.until("S3 errors over", Duration.ofMinutes(1), () -> scenarios.values().stream().noneMatch(s -> s.s3Faults().inOutage()));
                return status + " for " + length.toSeconds() + " s";
            }
            case S3_RESTART: {
                int down = 1_000 + random.nextInt(3_000);
                stack.s3().stop();
                Thread.sleep(down); // the fault itself: the server is down
                stack.s3().startAgain();
                return "down " + down + " ms";
            }
            case COMMIT_ANSWER_LOST: {
                int lost = 1 + random.nextInt(3);
                scenarios.values().forEach(s -> s.s3Faults().loseNextCompleteAnswers(lost));
                return lost + " per job";
            }
            case TASK_MANAGERS_KILLED:
                stack.killAndReplaceTaskManagers();
                return "";
            case CANCEL_AND_RESTORE:
                scenario.cancel();
                scenario.resume(scenario.latestRetainedCheckpoint(), parallelism.get(one));
                return one;
            case SAVEPOINT_AND_RESCALE: {
                int to = parallelism.merge(one, 0, (p, ignored) -> p == 1 ? 2 : 1);
                scenario.resume(scenario.stopWithSavepoint(), to);
                return one + " to parallelism " + to;
            }
            default:
                throw new IllegalArgumentException(fault.toString());
        }
    }

    private static void awaitS3Served(Map<String, FaultScenario> scenarios) throws Exception {
        Await.until("the S3 fault over", Duration.ofMinutes(3), () -> scenarios.values().stream().noneMatch(s -> s.s3Faults().throttlingOrStalling()));
    }

    /** What Kafka holds for a read_committed reader of the scenario's topic against what its archive holds. */
    private static Verdict verdict(SharedStack stack, String name, FaultScenario s) throws Exception {
        List<ArchiveRecord> inKafka = s.drain();
        VerificationReport report = stack.verifier(PayloadFormats.of(s.config())).verify(TableArchiveFiles.of(s.config()));
        Map<String, List<Long>> expected = new TreeMap<>();
        for (ArchiveRecord r : inKafka) {
            expected.computeIfAbsent(VerificationReport.id(r.getTopic(), r.getPartition()), k -> new ArrayList<>()).add(r.getOffset());
        }
        return new Verdict(name, s, inKafka, s.abortedSoFar(), report, ExpectedOffsets.compare(report, expected));
    }

    private static String report(long seed, int minutes, int rate, List<Injected> injected, List<Verdict> verdicts, long wallSeconds) {
        StringBuilder md = new StringBuilder();
        md.append("# Cluster soak, ").append(LocalDateTime.now().truncatedTo(ChronoUnit.MINUTES)).append("\n\n")
                .append(String.format("%d min of faults (%d s in all, the final checks included), seed %d, %d records a second per topic; three "
                        + "brokers (replication factor 3, min.insync.replicas 2), two TaskManagers, three jobs.%n%n", minutes, wallSeconds, seed, rate));
        long baseline = median(injected.stream().filter(i -> i.fault() == Fault.NONE).map(Injected::catchUpMillis).toList());
        md.append("Catch-up: from the end of a fault until every record committed to Kafka by then is in every archive. Baseline: the same "
                + "without a fault, ").append(baseline).append(" ms (median).\n\n");
        md.append("| fault | what | times | fault lasted (median ms) | catch-up (median ms) | catch-up (max ms) | catch-up / baseline (median) |\n")
                .append("|---|---|---|---|---|---|---|\n");
        Map<Fault, List<Injected>> byKind = new EnumMap<>(Fault.class);
        injected.forEach(i -> byKind.computeIfAbsent(i.fault(), k -> new ArrayList<>()).add(i));
        for (Map.Entry<Fault, List<Injected>> e : byKind.entrySet()) {
            List<Long> catchUps = e.getValue().stream().map(Injected::catchUpMillis).toList();
            long median = median(catchUps);
            md.append(String.format("| %s | %s | %d | %d | %d | %d | %s |%n", e.getKey(), e.getKey().what, e.getValue().size(),
                    median(e.getValue().stream().map(Injected::faultMillis).toList()), median, catchUps.stream().max(Long::compare).orElse(0L),
                    baseline == 0 ? "-" : String.format("%.2f", (double) median / baseline)));
        }
        md.append("\n| archive | read_committed records in Kafka | records of aborted transactions | archived | files | lost | duplicated "
                + "| archived but never produced | jobs started |\n|---|---|---|---|---|---|---|---|---|\n");
        for (Verdict v : verdicts) {
            md.append(String.format("| %s | %d | %d | %d | %d | %d | %d | %d | %d |%n", v.name(), v.inKafka().size(), v.aborted(), v.report().records(),
                    v.report().files(), v.comparison().missingCount(), v.report().duplicatedOffsets(), v.comparison().unexpectedCount(),
                    v.scenario().jobsStarted()));
        }
        md.append("\nSchedule: ");
        injected.stream().sorted(Comparator.comparingLong(Injected::atSecond)).forEach(i -> md.append(i.fault()).append(" at ")
                .append(i.atSecond()).append(" s").append(i.detail().isEmpty() ? "" : " (" + i.detail() + ")").append("; "));
        return md.append("\n").toString();
    }

    private static long median(List<Long> values) {
        if (values.isEmpty()) {
            return 0;
        }
        List<Long> sorted = new ArrayList<>(values);
        sorted.sort(Long::compare);
        return sorted.get(sorted.size() / 2);
    }
}
