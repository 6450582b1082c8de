package io.archiver.bench;

import io.archiver.archive.ArchiveFile;
import io.archiver.archive.ArchiveFileReader;
import io.archiver.archive.ArchiveFiles;
import io.archiver.archive.ArchiveRoot;
import io.archiver.config.ArchiverConfig;
import io.archiver.job.JobLauncher;
import io.archiver.local.EmbeddedKafka;
import io.archiver.local.EmbeddedS3;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.core.execution.JobClient;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * Latency from produce to visible in S3, and what a checkpoint costs, at the checkpoint intervals of
 * {@code bench.latency.intervals} (seconds, default 5), for topics of 8, 100 and 1,000 partitions (in the
 * per-partition layout each partition is one open file per checkpoint): a producer writes a steady
 * rate for the measured window while the archiver runs; a poller lists the archive every 200 ms (in the S3
 * server's folder, so its listings cost no S3 request) and reads each new file, so a record's latency is the
 * moment its file was first seen minus its produce time (resolution 200 ms). The topic stamps records with the
 * broker's append time and the producer puts its send time in a header, so the latency splits into the part
 * before the broker appended the record (the producer's batching) and the part after (the archiver's). Checkpoint durations come from Flink's REST API, S3 requests are counted at the server. Ratios:
 * latency against the checkpoint interval, requests per committed file; files per day are the files per
 * checkpoint times the checkpoints of a day. Each partition count is measured in
 * {@code bench.rounds} windows (median, min–max), for each interval and each layout of
 * {@code bench.latency.layouts} (per-partition, per-topic) one after the other. Writes
 * {@code target/bench/latency.md} and {@code .csv}.
 * {@code bench.s3.latency-ms} answers every S3 request that much later ({@link RequestCountingBlobStore}).
 *
 * <p>{@code mvn -q -DskipTests package exec:exec@bench -Dbench.class=LatencyBenchmark
 * [-Dbench.args="-Dbench.latency.partitions=8,100,1000 -Dbench.latency.layouts=per-partition -Dbench.latency.intervals=5,30 -Dbench.latency.seconds=60
 * -Dbench.latency.rate=2000 -Dbench.latency.format=parquet -Dbench.s3.latency-ms=0"]}
 */
public final class LatencyBenchmark {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Header holding the producer's send time (the record timestamp is the broker's append time). */
    private static final String SENT_AT = "sent-at";

    public static void main(String[] args) throws Exception {
        run();
        System.exit(0);
    }

    /** Runs the benchmark and writes its report under {@code target/bench}. */
    static void run() throws Exception {
        String[] partitionCounts = System.getProperty("bench.latency.partitions", "8,100,1000").split(",");
        String[] layouts = System.getProperty("bench.latency.layouts", "per-partition").split(",");
        String[] intervals = System.getProperty("bench.latency.intervals", "5").split(",");
        int seconds = Integer.getInteger("bench.latency.seconds", 60);
        int rate = Integer.getInteger("bench.latency.rate", 2_000);
        String format = System.getProperty("bench.latency.format", "parquet");
        int rounds = Integer.getInteger("bench.rounds", 3);
        Path work = BenchStack.workFolder("latency-bench");
        RequestCountingBlobStore[] counter = new RequestCountingBlobStore[1];
        Map<Case, List<Window>> windows = new LinkedHashMap<>();
        try (BenchStack stack = BenchStack.start(work, store -> counter[0] = new RequestCountingBlobStore(store))) {
            EmbeddedS3 s3 = stack.s3();
            EmbeddedKafka kafka = stack.kafka();
            for (String p : partitionCounts) {
                for (String interval : intervals) {
                    for (String layout : layouts) {
                        Case c = new Case(layout.trim(), Integer.parseInt(p.trim()), Long.parseLong(interval.trim()) * 1_000);
                        for (int round = 0; round < rounds; round++) {
                            windows.computeIfAbsent(c, k -> new ArrayList<>()).add(run(kafka, s3, counter[0], c, round, seconds, rate, format));
                        }
                    }
                }
            }
        }
        write(windows, seconds, rate, format, rounds);
    }

    /** A layout, a partition count and a checkpoint interval. */
    record Case(String layout, int partitions, long intervalMs) {}

    /** One measured window: latency percentiles (s), checkpoint durations (ms), files and requests per checkpoint. */
    record Window(long seen, long produced, double p50, double p99, double appendP50, double appendP99, long checkpointP50, long checkpointMax,
            double filesPerCheckpoint, double requestsPerCheckpoint) {}

    private static Window run(EmbeddedKafka kafka, EmbeddedS3 s3, RequestCountingBlobStore counter, Case c, int round,
            int seconds, int rate, String format) throws Exception {
        int partitions = c.partitions();
        long interval = c.intervalMs();
        String topic = "latency-" + c.layout() + "-" + partitions + "-" + interval / 1_000 + "s-" + round;
        kafka.createTopic(topic, partitions);
        try (Admin admin = kafka.admin()) {
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            admin.incrementalAlterConfigs(Map.of(resource, List.of(new AlterConfigOp(
                    new ConfigEntry("message.timestamp.type", "LogAppendTime"), AlterConfigOp.OpType.SET)))).all().get(30, TimeUnit.SECONDS);
        }
        int restPort = freePort();
        Map<String, String> settings = BenchSettings.archiver(kafka.bootstrapServers(), topic, topic, s3.flinkSettings());
        settings.put("kafka.start", "latest");
        settings.put("sink.format", format);
        settings.put("sink.time-partitioning", "hour");
        settings.put("sink.layout", c.layout());
        settings.put("checkpoint.interval", interval + " ms");
        settings.put("preflight.timeout", "0 s");
        settings.put("flink.rest.bind-port", Integer.toString(restPort));
        ArchiverConfig config = ArchiverConfig.of(BenchSettings.withCommandLine(settings));
        JobClient job = JobLauncher.environment(config).executeAsync(topic);
        Thread.sleep(Math.min(2 * interval, 10_000)); // let the source start at the log end (and the first checkpoints pass)

        // The poller reads the S3 server's own folder: its listings must neither count as the archiver's
        // requests nor queue behind them.
        Poller poller = new Poller(s3.dataDir().resolve("bench").resolve(topic).toUri().toString(), PayloadFormats.of(config));
        poller.start();
        long requestsBefore = counter.total();
        long windowStart = System.currentTimeMillis();
        long produced = produce(kafka.bootstrapServers(), topic, partitions, seconds, rate);
        long deadline = System.currentTimeMillis() + 4 * interval;
        while (poller.seen() < produced && System.currentTimeMillis() < deadline) {
            Thread.sleep(200);
        }
        long requests = counter.total() - requestsBefore;
        double window = System.currentTimeMillis() - windowStart;
        poller.stop();
        JsonNode checkpoints = rest(restPort, "/jobs/" + job.getJobID() + "/checkpoints");
        job.cancel().get(1, TimeUnit.MINUTES);
        try (Admin admin = kafka.admin()) {
            // the next window's broker holds no partitions but its own (thousands of partitions hold file handles)
            admin.deleteTopics(List.of(topic)).all().get(2, TimeUnit.MINUTES);
        }

        List<Long> latencies = poller.latencies();
        Collections.sort(latencies);
        List<Long> sinceAppend = poller.sinceAppend();
        Collections.sort(sinceAppend);
        long completed = checkpoints.path("counts").path("completed").asLong();
        JsonNode duration = checkpoints.path("summary").path("end_to_end_duration");
        double perCheckpoint = requests * interval / window;
        double filesPerCheckpoint = poller.newFiles() * interval / window;
        Window w = new Window(latencies.size(), produced, pct(latencies, 50) / 1000.0, pct(latencies, 99) / 1000.0,
                pct(sinceAppend, 50) / 1000.0, pct(sinceAppend, 99) / 1000.0,
                duration.path("p50").asLong(), duration.path("max").asLong(), filesPerCheckpoint, perCheckpoint);
        System.out.println(c.layout() + ", " + partitions + " partitions, " + interval / 1_000 + " s, round " + round + ": " + w
                + " (" + completed + " checkpoints completed)");
        return w;
    }

    /** Produces {@code rate} records per second (1 KiB values, keys) for {@code seconds}; returns how many. */
    private static long produce(String bootstrap, String topic, int partitions, int seconds, int rate) throws Exception {
        byte[] value = new byte[1024];
        java.util.Arrays.fill(value, (byte) 'x');
        long sent = 0;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.LINGER_MS_CONFIG, 5,
                // a batch per partition holds batch.size of the pool however little it carries: with thousands of
                // partitions the default 32 MB blocks the producer, not the archiver
                ProducerConfig.BUFFER_MEMORY_CONFIG, 512L << 20,
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class))) {
            long start = System.currentTimeMillis();
            for (int tick = 0; tick < seconds * 20; tick++) {
                for (int i = 0; i < rate / 20; i++, sent++) {
                    long now = System.currentTimeMillis();
                    producer.send(new ProducerRecord<>(topic, (int) (sent % partitions), now,
                            ("k" + sent).getBytes(StandardCharsets.UTF_8), value,
                            List.of(new RecordHeader(SENT_AT, ByteBuffer.allocate(8).putLong(now).array()))));
                }
                long next = start + (tick + 1) * 50L;
                long wait = next - System.currentTimeMillis();
                if (wait > 0) {
                    Thread.sleep(wait);
                }
            }
            producer.flush();
        }
        return sent;
    }

    private static long pct(List<Long> sorted, int p) {
        return sorted.isEmpty() ? -1 : sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p / 100.0 * sorted.size()) - 1));
    }

    private static JsonNode rest(int port, String path) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(r.body());
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static void write(Map<Case, List<Window>> windows, int seconds, int rate, String format, int rounds)
            throws Exception {
        StringBuilder md = new StringBuilder();
        md.append("# Latency and checkpoint cost, ").append(LocalDate.now()).append("\n\n").append(rate)
                .append(" records/s of 1 KiB for ").append(seconds).append(" s, ").append(format)
                .append(", hour folders, parallelism 2, S3Proxy filesystem backend")
                .append(RequestCountingBlobStore.latencyMillis() > 0
                        ? " answering every request " + RequestCountingBlobStore.latencyMillis() + " ms late (simulated round trip), " : ", ")
                .append(Runtime.getRuntime().availableProcessors()).append(" cores. Median of ").append(rounds)
                .append(" windows (min–max), each on a fresh topic.").append(BenchSettings.described()).append("\n\n")
                .append("| layout | partitions | interval s | records seen | p50 s | p99 s | p50 / p99 s after append | p50 × interval | p99 × interval | checkpoint p50 ms | checkpoint max ms | files / checkpoint | files / day | S3 requests / checkpoint | requests / file |\n")
                .append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        StringBuilder csv = new StringBuilder(
                "layout,partitions,interval_s,window,records_seen,records_produced,p50_s,p99_s,append_p50_s,append_p99_s,checkpoint_p50_ms,checkpoint_max_ms,files_per_checkpoint,requests_per_checkpoint\n");
        for (Map.Entry<Case, List<Window>> e : windows.entrySet()) {
            List<Window> ws = e.getValue();
            double files = median(ws, Window::filesPerCheckpoint);
            double requests = median(ws, Window::requestsPerCheckpoint);
            long interval = e.getKey().intervalMs();
            md.append(String.format("| %s | %,d | %d | %,.0f of %,.0f | %.2f (%.2f–%.2f) | %.2f (%.2f–%.2f) | %.2f / %.2f | %.2f | %.2f | %.0f | %.0f | %.0f | %,.0f | %.0f | %.1f |%n",
                    e.getKey().layout(), e.getKey().partitions(), interval / 1_000, median(ws, Window::seen), median(ws, Window::produced),
                    median(ws, Window::p50), min(ws, Window::p50), max(ws, Window::p50),
                    median(ws, Window::p99), min(ws, Window::p99), max(ws, Window::p99),
                    median(ws, Window::appendP50), median(ws, Window::appendP99),
                    median(ws, Window::p50) * 1000 / interval, median(ws, Window::p99) * 1000 / interval,
                    median(ws, Window::checkpointP50), median(ws, Window::checkpointMax), files, files * 86_400_000 / interval, requests,
                    requests / Math.max(1, files)));
            for (int i = 0; i < ws.size(); i++) {
                Window w = ws.get(i);
                csv.append(String.format("%s,%d,%d,%d,%d,%d,%.3f,%.3f,%.3f,%.3f,%d,%d,%.1f,%.1f%n", e.getKey().layout(), e.getKey().partitions(), interval / 1_000, i,
                        w.seen(), w.produced(), w.p50(),
                        w.p99(), w.appendP50(), w.appendP99(), w.checkpointP50(), w.checkpointMax(), w.filesPerCheckpoint(), w.requestsPerCheckpoint()));
            }
        }
        Path dir = Path.of("target", "bench");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("latency.md"), md);
        Files.writeString(dir.resolve("latency.csv"), csv);
        System.out.println(md);
    }

    private static double median(List<Window> windows, ToDoubleFunction<Window> f) {
        return BenchmarkReport.median(windows.stream().map(f::applyAsDouble).toList());
    }

    private static double min(List<Window> windows, ToDoubleFunction<Window> f) {
        return windows.stream().mapToDouble(f).min().orElse(0);
    }

    private static double max(List<Window> windows, ToDoubleFunction<Window> f) {
        return windows.stream().mapToDouble(f).max().orElse(0);
    }

    /** Lists the archive every 200 ms and notes, for every record of every new file, when it became visible. */
    private static final class Poller implements Runnable {
        private final String root;
        private final ArchiveFileReader reader;
        private final Set<String> known = new HashSet<>();
        private volatile int newFiles;
        private final List<Long> latencies = Collections.synchronizedList(new ArrayList<>());
        private final List<Long> sinceAppend = Collections.synchronizedList(new ArrayList<>());
        private final Thread thread = new Thread(this, "latency-poller");
        private volatile boolean stopped;

        Poller(String root, PayloadFormats formats) {
            this.root = root;
            this.reader = new ArchiveFileReader(formats);
        }

        void start() throws Exception {
            for (ArchiveFile f : ArchiveFiles.listed(ArchiveRoot.of(root)).list().committed()) {
                known.add(f.path().toString());
            }
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public void run() {
            while (!stopped) {
                try {
                    long now = System.currentTimeMillis();
                    for (ArchiveFile f : ArchiveFiles.listed(ArchiveRoot.of(root)).list().committed()) {
                        if (!known.contains(f.path().toString())) {
                            List<ArchiveRecord> records = readIfComplete(f);
                            if (records != null) {
                                known.add(f.path().toString());
                                newFiles++;
                                records.forEach(r -> {
                                    latencies.add(now - sentAt(r));
                                    sinceAppend.add(now - r.getTimestamp());
                                });
                            }
                        }
                    }
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    return;
                } catch (Exception e) {
                    System.err.println("poller: " + e);
                }
            }
        }

        /** The file's records, or null while the server is still writing it (read again at the next poll). */
        private List<ArchiveRecord> readIfComplete(ArchiveFile f) {
            try {
                return reader.readAll(f.path());
            } catch (Exception e) {
                return null;
            }
        }

        long seen() {
            return latencies.size();
        }

        /** Files that became visible while polling. */
        int newFiles() {
            return newFiles;
        }

        List<Long> latencies() {
            return new ArrayList<>(latencies);
        }

        /** Latencies from the broker's append (the record timestamp) instead of the producer's send. */
        List<Long> sinceAppend() {
            return new ArrayList<>(sinceAppend);
        }

        private static long sentAt(ArchiveRecord r) {
            for (int i = 0; i < r.getHeaderKeys().length; i++) {
                if (SENT_AT.equals(r.getHeaderKeys()[i])) {
                    return ByteBuffer.wrap(r.getHeaderValues()[i]).getLong();
                }
            }
            throw new IllegalStateException("record without a " + SENT_AT + " header: " + r.getTopic() + "-" + r.getPartition() + "@" + r.getOffset());
        }

        void stop() throws InterruptedException {
            stopped = true;
            thread.interrupt();
            thread.join(10_000);
        }
    }
}
