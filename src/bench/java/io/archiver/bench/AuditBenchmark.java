package io.archiver.bench;

import io.archiver.archive.ArchiveVerifier;
import io.archiver.archive.S3IncompleteUploads;
import io.archiver.audit.ArchiveAuditor;
import io.archiver.audit.AuditReport;
import io.archiver.audit.KafkaInspector;
import io.archiver.config.ArchiverConfig;
import io.archiver.job.JobLauncher;
import io.archiver.local.EmbeddedKafka;
import io.archiver.local.EmbeddedS3;
import io.archiver.record.PayloadFormats;
import io.archiver.table.TableArchiveFiles;
import io.archiver.testutils.Await;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * Cost of {@code audit} on topics full of holes: a transactional topic (transactions of 1,000 records, every
 * fifth aborted: {@code bench.audit.records} committed, default 1,000,000) and a compacted topic (half as many
 * records, compacted before it is archived), 256-byte values, 8 partitions each, archived in Parquet. The audit, fast and
 * deep, against the baseline measured in the same run: a plain read_committed consumer reading the same
 * offsets. Median of the rounds (min–max) after one warm-up round. Writes {@code target/bench/audit.md} and
 * {@code .csv}.
 *
 * <p>{@code mvn -q -DskipTests package exec:exec@bench -Dbench.class=AuditBenchmark
 * [-Dbench.args="-Dbench.audit.records=1000000 -Dbench.rounds=3"]}
 */
public final class AuditBenchmark {

    private static final int PARTITIONS = 8;
    private static final int VALUE_BYTES = 256;

    public static void main(String[] args) throws Exception {
        run();
        System.exit(0);
    }

    /** Runs the benchmark and writes its report under {@code target/bench}. */
    static void run() throws Exception {
        long records = Long.getLong("bench.audit.records", 1_000_000);
        int rounds = Integer.getInteger("bench.rounds", 3);
        Path work = BenchStack.workFolder("audit-bench");
        try (BenchStack stack = BenchStack.start(work)) {
            EmbeddedS3 s3 = stack.s3();
            EmbeddedKafka kafka = stack.kafka();
            String bootstrap = kafka.bootstrapServers();
            long setup = System.nanoTime();
            // a fifth of the transactional records are aborted: four fifths of them, plus what compaction leaves
            // of the compacted topic, make about the records asked for
            produceTransactional(kafka, "transactional", records * 5 / 4);
            produceCompacted(kafka, "compacted", records / 2);
            List<String> topics = List.of("transactional", "compacted");
            Map<String, String> settings = BenchSettings.archiver(bootstrap, String.join(",", topics), "audit", s3.flinkSettings());
            settings.put("mode", "batch");
            ArchiverConfig config = ArchiverConfig.of(BenchSettings.withCommandLine(settings));
            JobLauncher.environment(config).executeAsync("audit-bench").getJobExecutionResult().get(30, TimeUnit.MINUTES);
            System.out.printf("Topics produced and archived in %.0f s%n", (System.nanoTime() - setup) / 1e9);

            Properties client = config.kafkaClientProperties();
            List<Result> results = new ArrayList<>();
            try (S3IncompleteUploads uploads = S3IncompleteUploads.fromSettings(stack.fileSystems()); KafkaInspector inspector = new KafkaInspector(client)) {
                ArchiveAuditor auditor = new ArchiveAuditor(new ArchiveVerifier(PayloadFormats.of(config), uploads), inspector, Duration.ofHours(1));
                long[] archived = {0};
                results.add(measure("audit --deep", rounds, () -> {
                    AuditReport report = auditor.audit(TableArchiveFiles.of(config), topics, "audit", true);
                    check(report.isClean(), "the archive is clean");
                    archived[0] = report.getPartitions().stream().mapToLong(p -> p.getRecords()).sum();
                    return archived[0];
                }));
                results.add(measure("audit (fast)", rounds, () -> {
                    AuditReport report = auditor.audit(TableArchiveFiles.of(config), topics, "audit", false);
                    check(report.isClean(), "the archive is clean");
                    return report.getPartitions().stream().mapToLong(p -> p.getRecords()).sum();
                }));
                results.add(measure("baseline: read_committed consumer", rounds, () -> {
                    long read = readCommitted(client, topics);
                    check(read == archived[0], "the consumer read " + read + " records, the archive holds " + archived[0]);
                    return read;
                }));
            }
            write(results, records, rounds);
        }
    }

    private static void produceTransactional(EmbeddedKafka kafka, String topic, long count) throws Exception {
        kafka.createTopic(topic, PARTITIONS);
        String bootstrap = kafka.bootstrapServers();
        Random random = new Random(7);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, "audit-bench",
                ProducerConfig.LINGER_MS_CONFIG, 20,
                ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class))) {
            producer.initTransactions();
            for (long start = 0, t = 1; start < count; start += 1_000, t++) {
                producer.beginTransaction();
                for (long i = start; i < Math.min(count, start + 1_000); i++) {
                    producer.send(new ProducerRecord<>(topic, (int) (i % PARTITIONS), key(i, 100_000), value(random)));
                }
                if (t % 5 == 0) {
                    producer.flush();
                    producer.abortTransaction();
                } else {
                    producer.commitTransaction();
                }
            }
        }
    }

    /** Keys out of a tenth of the records, in small segments, then waits until the cleaner has compacted. */
    private static void produceCompacted(EmbeddedKafka kafka, String topic, long count) throws Exception {
        try (Admin admin = kafka.admin()) {
            admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1).configs(Map.of(
                    "cleanup.policy", "compact", "segment.bytes", String.valueOf(1 << 20), "min.cleanable.dirty.ratio", "0.01",
                    "min.compaction.lag.ms", "0")))).all().get(30, TimeUnit.SECONDS);
        }
        Random random = new Random(11);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ProducerConfig.LINGER_MS_CONFIG, 20,
                ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class))) {
            for (long i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, (int) (i % PARTITIONS), key(i, count / 10), value(random)));
            }
        }
        long[] held = {count};
        // the log cleaner works on its own schedule
        Await.until("compaction of " + topic, Duration.ofMinutes(5),
                () -> (held[0] = readCommitted(clientOf(kafka), List.of(topic))) <= count * 0.6, () -> "holds " + held[0]);
        System.out.printf("Compacted topic holds %,d of %,d records%n", held[0], count);
    }

    private static Properties clientOf(EmbeddedKafka kafka) {
        Properties p = new Properties();
        p.setProperty("bootstrap.servers", kafka.bootstrapServers());
        return p;
    }

    private static byte[] key(long i, long keys) {
        return ("key-" + (i % Math.max(1, keys))).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(Random random) {
        byte[] value = new byte[VALUE_BYTES];
        for (int b = 0; b < VALUE_BYTES; b++) {
            value[b] = (byte) ('a' + random.nextInt(26));
        }
        return value;
    }

    /** Reads every committed record of {@code topics} as a plain consumer does; returns how many. */
    private static long readCommitted(Properties client, List<String> topics) {
        Properties props = new Properties();
        props.putAll(client);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            topics.forEach(t -> consumer.partitionsFor(t).forEach(p -> partitions.add(new TopicPartition(t, p.partition()))));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long read = 0;
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                read += consumer.poll(Duration.ofMillis(500)).count();
            }
            return read;
        }
    }

    private static Result measure(String name, int rounds, Callable<Long> run) throws Exception {
        long records = run.call();
        List<Double> seconds = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            long start = System.nanoTime();
            run.call();
            seconds.add((System.nanoTime() - start) / 1e9);
        }
        Collections.sort(seconds);
        Result result = new Result(name, records, seconds.get(seconds.size() / 2), seconds.get(0), seconds.get(seconds.size() - 1));
        System.out.printf("%s: %.2f s (%.2f-%.2f), %,d records%n", name, result.median, result.min, result.max, records);
        return result;
    }

    private static void write(List<Result> results, long records, int rounds) throws Exception {
        Result baseline = results.get(results.size() - 1);
        StringBuilder md = new StringBuilder();
        StringBuilder csv = new StringBuilder("variant,records,seconds_median,seconds_min,seconds_max,time_vs_baseline\n");
        md.append("# Audit of transactional and compacted topics, ").append(LocalDate.now()).append("\n\n")
                .append(String.format("%,d records produced over 2 topics of %d partitions: a transactional one (%,d records"
                        + " in transactions of 1,000, every fifth aborted) and a compacted one (%,d records, compacted before"
                        + " archiving); %,d committed records archived in Parquet, 256-byte values. ",
                        records * 5 / 4 + records / 2, PARTITIONS, records * 5 / 4, records / 2, baseline.records))
                .append(Runtime.getRuntime().availableProcessors()).append(" cores, Java ").append(System.getProperty("java.version"))
                .append(". Median of ").append(rounds).append(" rounds after one warm-up (min–max).").append(BenchSettings.described())
                .append("\n\n| variant | seconds | records/s | time × baseline |\n|---|---|---|---|\n");
        for (Result r : results) {
            md.append(String.format("| %s | %.2f (%.2f–%.2f) | %,.0f | %.2f |%n", r.name, r.median, r.min, r.max,
                    r.records / r.median, r.median / baseline.median));
            csv.append(String.format("%s,%d,%.4f,%.4f,%.4f,%.4f%n", r.name, r.records, r.median, r.min, r.max, r.median / baseline.median));
        }
        Path dir = Path.of("target", "bench");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("audit.md"), md);
        Files.writeString(dir.resolve("audit.csv"), csv);
        System.out.println(md);
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException("benchmark invariant broken: " + what);
        }
    }

    private record Result(String name, long records, double median, double min, double max) {}
}
