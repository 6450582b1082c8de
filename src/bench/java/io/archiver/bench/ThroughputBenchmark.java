package io.archiver.bench;

import io.archiver.config.ArchiverConfig;
import io.archiver.job.JobLauncher;
import io.archiver.local.EmbeddedKafka;
import io.archiver.local.EmbeddedS3;
import io.archiver.local.EmbeddedSchemaRegistry;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.SimpleStringEncoder;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.file.sink.FileSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.filesystem.rollingpolicies.OnCheckpointRollingPolicy;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CompletedMultipartUpload;
import software.amazon.awssdk.services.s3.model.CompletedPart;

import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

/**
 * Throughput of the archiver against its limit and its peer, measured side by side in one run on the local
 * stack: 1 KiB records with keys and headers, pre-loaded over 8 partitions.
 * <ul>
 *   <li>limit (a): a plain Kafka consumer reading the topic; limit (b): parallel multipart uploads of the same
 *       number of bytes to the S3 server; the slower one binds;</li>
 *   <li>peer: the plain Flink job a user would write (KafkaSource of strings → FileSink row format);</li>
 *   <li>the archiver: JSON Lines (none, gzip; binary payloads as base64, and text payloads as strings) and
 *       Parquet (snappy, zstd), full envelope.</li>
 * </ul>
 * Every Flink variant is bounded at the topic's end, parallelism 2, checkpoints every 5 s, MiniCluster start
 * included. One warm-up round is discarded; each figure is the median of the measured rounds with min and max.
 * Writes {@code target/bench/throughput.md}, {@code .csv} and {@code .png}.
 *
 * <p>{@code mvn -q -DskipTests package exec:exec@bench -Dbench.class=ThroughputBenchmark
 * [-Dbench.args="-Dbench.throughput.records=2000000 -Dbench.rounds=3 -Dbench.throughput.only=gzip"]}; {@code only}
 * keeps the archiver variants whose name contains the text, or the variants of those names separated by '|' (the
 * limit and the peer always run). "archiver parquet zstd, Iceberg table" is "archiver parquet zstd" with a table
 * commit per checkpoint (a SQLite catalog, metadata in the S3 server). {@code -Dbench.throughput.payload=avro}: Avro values (about 1 KiB, {@link AvroOrders}) through
 * a Schema Registry, archived as typed columns against the same records kept as bytes (Parquet and JSON Lines).
 */
public final class ThroughputBenchmark {

    private static final int PARTITIONS = 8;
    private static final String TOPIC = "bench";

    private final EmbeddedKafka kafka;
    private final EmbeddedS3 s3;
    private final long records;
    private final long inputBytes;
    /** The Schema Registry's URL when the values are Avro ({@code -Dbench.throughput.payload=avro}), else null. */
    private final String registry;

    private ThroughputBenchmark(EmbeddedKafka kafka, EmbeddedS3 s3, long records, long inputBytes, String registry) {
        this.kafka = kafka;
        this.s3 = s3;
        this.records = records;
        this.inputBytes = inputBytes;
        this.registry = registry;
    }

    public static void main(String[] args) throws Exception {
        run();
        System.exit(0);
    }

    /** Runs the benchmark and writes its report under {@code target/bench}. */
    static void run() throws Exception {
        int records = Integer.getInteger("bench.throughput.records", 2_000_000);
        int rounds = Integer.getInteger("bench.rounds", 3);
        java.nio.file.Path work = BenchStack.workFolder("bench");
        boolean avro = System.getProperty("bench.throughput.payload", "bytes").equals("avro");
        try (BenchStack stack = BenchStack.start(work); EmbeddedSchemaRegistry registry = avro ? EmbeddedSchemaRegistry.start() : null) {
            EmbeddedS3 s3 = stack.s3();
            EmbeddedKafka kafka = stack.kafka();
            kafka.createTopic(TOPIC, PARTITIONS);
            long bytes;
            if (avro) {
                int id = registry.register(TOPIC + "-value", "AVRO", AvroOrders.SCHEMA.toString());
                bytes = Preloader.preload(kafka.bootstrapServers(), TOPIC, PARTITIONS, records, i -> null, (n, random) -> AvroOrders.encode(id, n, random));
            } else {
                bytes = Preloader.preload(kafka.bootstrapServers(), TOPIC, PARTITIONS, records, i -> null);
            }
            ThroughputBenchmark bench = new ThroughputBenchmark(kafka, s3, records, bytes, avro ? registry.url() : null);
            Map<String, Long> outputBytes = new LinkedHashMap<>();
            Map<String, List<Map<CpuAccounting.Part, Double>>> cpu = new LinkedHashMap<>();
            Map<String, List<Double>> seconds = bench.run(rounds, outputBytes, cpu);
            new BenchmarkReport(records, bytes, rounds).write(seconds, outputBytes, cpu);
        }
    }

    /**
     * Seconds of every measured round per variant; {@code outputBytes} gets what each job wrote to S3, {@code cpu}
     * the CPU seconds of every measured round by part of the stack.
     */
    private Map<String, List<Double>> run(
            int rounds, Map<String, Long> outputBytes, Map<String, List<Map<CpuAccounting.Part, Double>>> cpu)
            throws Exception {
        Map<String, Measurement> variants = new LinkedHashMap<>();
        variants.put("limit (a): Kafka consumer", this::consume);
        variants.put("limit (b): S3 multipart ingest", this::s3Ingest);
        variants.put("peer: plain Flink job", this::plainJob);
        if (registry != null) {
            // Avro values (about 1 KiB, AvroOrders): typed columns against the same records kept as bytes
            variants.put("archiver parquet, avro as bytes", n -> archiver(n, Map.of()));
            variants.put("archiver parquet, avro typed, bytes kept", n -> archiver(n, Map.of("record.value.format", "avro",
                    "schema-registry.url", registry, "sink.parquet.decoded-payload-bytes", "keep")));
            variants.put("archiver parquet, avro typed, bytes rebuilt", n -> archiver(n, Map.of("record.value.format", "avro",
                    "schema-registry.url", registry, "sink.parquet.decoded-payload-bytes", "rebuild")));
            variants.put("archiver jsonl, avro as bytes", n -> archiver(n, Map.of("sink.format", "jsonl")));
            variants.put("archiver jsonl, avro typed",
                    n -> archiver(n, Map.of("sink.format", "jsonl", "record.value.format", "avro", "schema-registry.url", registry)));
        } else {
            variants.put("archiver jsonl", n -> archiver(n, Map.of("sink.format", "jsonl")));
            // the same envelope with key and value written as JSON strings: no base64, what the peer writes
            variants.put("archiver jsonl, text payloads",
                    n -> archiver(n, Map.of("sink.format", "jsonl", "record.key.format", "string", "record.value.format", "string")));
            variants.put("archiver jsonl gzip", n -> archiver(n, Map.of("sink.format", "jsonl", "sink.jsonl.compression", "gzip")));
            variants.put("archiver jsonl gzip level 1",
                    n -> archiver(n, Map.of("sink.format", "jsonl", "sink.jsonl.compression", "gzip", "sink.jsonl.gzip-level", "1")));
            variants.put("archiver jsonl zstd", n -> archiver(n, Map.of("sink.format", "jsonl", "sink.jsonl.compression", "zstd")));
            variants.put("archiver jsonl zstd level 3",
                    n -> archiver(n, Map.of("sink.format", "jsonl", "sink.jsonl.compression", "zstd", "sink.jsonl.zstd-level", "3")));
            variants.put("archiver parquet snappy", n -> archiver(n, Map.of("sink.parquet.compression", "snappy")));
            variants.put("archiver parquet zstd", n -> archiver(n, Map.of("sink.parquet.compression", "zstd")));
            variants.put("archiver parquet zstd, Iceberg table", n -> archiver(n, Map.of("sink.parquet.compression", "zstd",
                    "table.format", "iceberg", "table.catalog.uri", "jdbc:sqlite:" + catalogs().resolve(n + ".db"))));
            variants.put("archiver parquet zstd level 3",
                    n -> archiver(n, Map.of("sink.parquet.compression", "zstd", "sink.parquet.zstd-level", "3")));
            // the Kafka consumer's fetch sizes around its defaults (1 MiB per partition, 64 KiB socket buffer)
            variants.put("archiver parquet zstd, fetch 256 KiB per partition",
                    n -> archiver(n, Map.of("kafka.properties.max.partition.fetch.bytes", "262144")));
            variants.put("archiver parquet zstd, fetch 4 MiB per partition",
                    n -> archiver(n, Map.of("kafka.properties.max.partition.fetch.bytes", "4194304")));
            variants.put("archiver parquet zstd, fetch 4 MiB per partition, 1 MiB socket buffer", n -> archiver(n,
                    Map.of("kafka.properties.max.partition.fetch.bytes", "4194304", "kafka.properties.receive.buffer.bytes", "1048576")));
            // the S3 writer's part size (Flink's s3.upload.min.part.size, default 5 MiB): requests per file against memory
            variants.put("archiver parquet zstd, S3 parts of 16 MiB", n -> archiver(n, Map.of("flink.s3.upload.min.part.size", "16777216")));
        }
        // -Dbench.throughput.only=gzip: the limit, the peer and the archiver variants whose name contains "gzip";
        // full names separated by '|' keep those variants alone
        String only = System.getProperty("bench.throughput.only", "");
        List<String> named = List.of(only.split("\\|"));
        boolean exact = variants.keySet().containsAll(named);
        variants.keySet().removeIf(v -> v.startsWith("archiver") && !(exact ? named.contains(v) : v.contains(only)));
        return measure(variants, rounds, outputBytes, cpu);
    }

    private static Map<String, List<Double>> measure(Map<String, Measurement> variants,
            int rounds, Map<String, Long> outputBytes, Map<String, List<Map<CpuAccounting.Part, Double>>> cpu) throws Exception {
        Map<String, List<Double>> seconds = new LinkedHashMap<>();
        List<Map.Entry<String, Measurement>> order = new ArrayList<>(variants.entrySet());
        for (int round = 0; round <= rounds; round++) {
            // each round starts one variant later, so that no variant keeps its place in the round (what ran just
            // before it, the heap and the S3 server's folders it leaves)
            Collections.rotate(order, round == 0 ? 0 : -1);
            for (Map.Entry<String, Measurement> v : order) {
                String run = v.getKey().replaceAll("[^a-z0-9]+", "-") + "-" + round;
                long start = System.nanoTime();
                long written;
                Map<CpuAccounting.Part, Double> spent;
                try (CpuAccounting accounting = CpuAccounting.start()) {
                    written = v.getValue().run(run);
                    spent = accounting.seconds();
                }
                double s = (System.nanoTime() - start) / 1e9;
                if (written > 0) {
                    outputBytes.put(v.getKey(), written);
                }
                System.out.printf("round %d %-32s %7.2f s%n", round, v.getKey(), s);
                if (round > 0) {
                    seconds.computeIfAbsent(v.getKey(), k -> new ArrayList<>()).add(s);
                    cpu.computeIfAbsent(v.getKey(), k -> new ArrayList<>()).add(spent);
                }
            }
        }
        return seconds;
    }

    private interface Measurement {
        /** Runs one round; returns the bytes the job wrote to S3, 0 for the limits. */
        long run(String name) throws Exception;
    }

    private long consume(String name) {
        Map<String, Object> props = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000,
                ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 64 * 1024 * 1024,
                ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 8 * 1024 * 1024);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                tps.add(new TopicPartition(TOPIC, p));
            }
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            long seen = 0;
            while (seen < records) {
                seen += consumer.poll(Duration.ofSeconds(1)).count();
            }
        }
        return 0;
    }

    private long s3Ingest(String name) throws Exception {
        int parts = 16;
        long partSize = inputBytes / parts + 1;
        byte[] part = new byte[(int) Math.min(partSize, Integer.MAX_VALUE - 16)];
        Arrays.fill(part, (byte) 'x');
        try (S3Client client = S3Client.builder()
                .httpClient(UrlConnectionHttpClient.builder().build())
                .endpointOverride(s3.endpoint()).forcePathStyle(true).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(EmbeddedS3.ACCESS_KEY, EmbeddedS3.SECRET_KEY)))
                .build()) {
            String key = "ingest/" + name;
            String upload = client.createMultipartUpload(b -> b.bucket("bench").key(key)).uploadId();
            ExecutorService pool = Executors.newFixedThreadPool(4);
            List<Future<CompletedPart>> done = new ArrayList<>();
            for (int i = 1; i <= parts; i++) {
                int number = i;
                done.add(pool.submit(() -> CompletedPart.builder().partNumber(number).eTag(
                        client.uploadPart(b -> b.bucket("bench").key(key).uploadId(upload).partNumber(number),
                                RequestBody.fromBytes(part)).eTag()).build()));
            }
            List<CompletedPart> completed = new ArrayList<>();
            for (Future<CompletedPart> f : done) {
                completed.add(f.get());
            }
            pool.shutdown();
            client.completeMultipartUpload(CompleteMultipartUploadRequest.builder().bucket("bench").key(key).uploadId(upload)
                    .multipartUpload(CompletedMultipartUpload.builder().parts(completed).build()).build());
            client.deleteObject(b -> b.bucket("bench").key(key));
        }
        return 0;
    }

    private long plainJob(String name) throws Exception {
        Configuration conf = new Configuration();
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofSeconds(5));
        conf.set(CoreOptions.DEFAULT_PARALLELISM, 2);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        KafkaSource<String> source = KafkaSource.<String>builder()
                .setBootstrapServers(kafka.bootstrapServers())
                .setTopics(TOPIC)
                .setGroupId(name)
                .setStartingOffsets(OffsetsInitializer.earliest())
                .setBounded(OffsetsInitializer.latest())
                .setValueOnlyDeserializer(new SimpleStringSchema())
                .build();
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "source").uid("source")
                .sinkTo(FileSink.forRowFormat(new Path("s3://bench/" + name), new SimpleStringEncoder<String>())
                        .withRollingPolicy(OnCheckpointRollingPolicy.build()).build())
                .uid("sink");
        env.execute(name);
        return writtenAndDeleted(name);
    }

    private long archiver(String name, Map<String, String> format) throws Exception {
        Map<String, String> settings = BenchSettings.archiver(kafka.bootstrapServers(), TOPIC, name, s3.flinkSettings());
        settings.putAll(format);
        settings.put("mode", "batch");
        // the same runtime as the peer: streaming with checkpoints every 5 s, bounded at the log end
        settings.put("flink.execution.runtime-mode", "STREAMING");
        settings.put("flink.execution.checkpointing.interval", "5 s");
        JobLauncher.environment(ArchiverConfig.of(BenchSettings.withCommandLine(settings))).execute(name);
        return writtenAndDeleted(name);
    }

    /** A folder for the SQLite catalogs of the table variant, one catalog per run. */
    private static java.nio.file.Path catalogs() throws java.io.IOException {
        java.nio.file.Path dir = java.nio.file.Path.of("target", "bench", "catalogs").toAbsolutePath();
        Files.createDirectories(dir);
        return dir;
    }

    /** The size of what the job wrote (read at the S3 server's folder: what compression buys), then deletes it. */
    private long writtenAndDeleted(String name) throws Exception {
        long bytes;
        try (Stream<java.nio.file.Path> files = Files.walk(s3.dataDir().resolve("bench").resolve(name))) {
            bytes = files.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
        }
        Path root = new Path("s3://bench/" + name);
        root.getFileSystem().delete(root, true);
        return bytes;
    }
}
