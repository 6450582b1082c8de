package io.archiver.bench;

import io.archiver.archive.ArchiveFile;
import io.archiver.archive.ArchiveFileReader;
import io.archiver.cli.ArchiverCli;
import io.archiver.config.ArchiverConfig;
import io.archiver.job.JobLauncher;
import io.archiver.local.EmbeddedKafka;
import io.archiver.record.PayloadFormats;
import io.archiver.table.TableArchiveFiles;

import org.apache.flink.core.execution.JobClient;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Cost of {@code erase}: one topic of {@code bench.erase.partitions} partitions (default 1,000) holding
 * {@code bench.erase.records} records (default 2,000,000; 256-byte random values; keys {@code customer-<n>}, each
 * {@value #RECORDS_PER_KEY} times, partitioned by Kafka's producer by key, so a key lives in one partition) archived by a
 * batch job twice in the per-topic layout, their timestamps spread over {@value #HOURS} hour folders: once with Parquet Bloom filters of the key
 * ({@code sink.parquet.bloom-filter-columns: key}), once without. Then, while a streaming job archives on into the first
 * archive (a producer adding records to the topic meanwhile), one key after another is erased from each with the
 * command line, a dry run (the search alone) and then {@code erase --key K --apply}. Reports the median time (min–max), the bytes the S3 server sent against
 * the archive's size, the files searched record by record and rewritten, and the ratio to the baseline measured in the
 * same run: reading every record of the archive once. Writes {@code target/bench/erase.md} and {@code .csv}.
 *
 * <p>{@code mvn -q -DskipTests package exec:exec@bench -Dbench.class=EraseBenchmark
 * [-Dbench.args="-Dbench.erase.records=2000000 -Dbench.erase.partitions=1000 -Dbench.rounds=3"]}
 */
public final class EraseBenchmark {

    private static final int RECORDS_PER_KEY = 4;
    /** The hours the archive's records span: hour folders, so files of a few hundred KB each. */
    private static final long HOURS = 48;
    private static final long START = System.currentTimeMillis();
    private static final Pattern ERASED = Pattern.compile("Erased (\\d+) records from (\\d+) files");
    private static final Pattern WOULD_ERASE = Pattern.compile("Would erase (\\d+) records from (\\d+) files");
    private static final Pattern READ_WHOLE = Pattern.compile("Searched (\\d+) files, (\\d+) of them record by record");
    private static final String FILTERED = "erase, key Bloom filters";
    private static final String UNFILTERED = "erase, no Bloom filters";

    public static void main(String[] args) throws Exception {
        run();
        System.exit(0);
    }

    /** One variant's erasures: seconds, bytes the server sent, files rewritten and read whole, records erased. */
    private record Round(double seconds, long bytes, long rewritten, long readWhole, long erased) {}

    /** Runs the benchmark and writes its report under {@code target/bench}. */
    static void run() throws Exception {
        long records = Long.getLong("bench.erase.records", 2_000_000);
        int partitions = Integer.getInteger("bench.erase.partitions", 1_000);
        int rounds = Integer.getInteger("bench.rounds", 3);
        long keys = records / RECORDS_PER_KEY;
        Path work = BenchStack.workFolder("erase-bench");
        RequestCountingBlobStore[] s3 = new RequestCountingBlobStore[1];
        try (BenchStack stack = BenchStack.start(work, store -> s3[0] = new RequestCountingBlobStore(store))) {
            EmbeddedKafka kafka = stack.kafka();
            kafka.createTopic("people", partitions);
            produce(kafka.bootstrapServers(), 0, records, keys, new AtomicBoolean(true));
            Map<String, ArchiverConfig> archives = new LinkedHashMap<>();
            archives.put(FILTERED, archive(stack, "erase-filtered", "key"));
            archives.put(UNFILTERED, archive(stack, "erase-unfiltered", ""));

            ArchiverConfig filtered = archives.get(FILTERED);
            List<ArchiveFile> files = TableArchiveFiles.of(filtered).list().committed();
            long archiveBytes = ArchiveFile.byPath(files).values().stream().mapToLong(f -> f.get(0).size()).sum();
            int fileCount = ArchiveFile.byPath(files).size();
            ArchiveFileReader reader = new ArchiveFileReader(PayloadFormats.of(filtered));
            List<Double> baseline = new ArrayList<>();
            long[] read = {0};
            for (int r = 0; r <= rounds; r++) {
                long start = System.nanoTime();
                read[0] = 0;
                for (List<ArchiveFile> shares : ArchiveFile.byPath(files).values()) {
                    reader.read(shares.get(0).path(), record -> read[0]++);
                }
                if (r > 0) {
                    baseline.add((System.nanoTime() - start) / 1e9);
                }
            }
            System.out.printf("Archive: %,d records in %d files, %,d bytes; read in %.2f s%n", read[0], fileCount, archiveBytes,
                    BenchmarkReport.median(baseline));

            // the live job: archives on into the filtered archive while a producer adds records
            Map<String, String> live = new LinkedHashMap<>(filtered.toMap());
            live.put("mode", "streaming");
            live.put("checkpoint.interval", "10s");
            JobClient job = JobLauncher.environment(ArchiverConfig.of(live)).executeAsync("erase-bench-live");
            AtomicBoolean producing = new AtomicBoolean(true);
            Thread producer = new Thread(() -> produce(kafka.bootstrapServers(), records, Long.MAX_VALUE, keys, producing), "live-producer");
            producer.start();
            Map<String, List<Round>> results = new LinkedHashMap<>();
            try {
                for (int r = 0; r <= rounds; r++) {
                    for (Map.Entry<String, ArchiverConfig> archive : archives.entrySet()) {
                        String key = "customer-" + (r * 7_919 + 13);
                        for (boolean apply : new boolean[] {false, true}) {
                            long bytesBefore = s3[0].getBytes.get();
                            long start = System.nanoTime();
                            String out = erase(archive.getValue(), stack, key, apply);
                            double seconds = (System.nanoTime() - start) / 1e9;
                            long bytes = s3[0].getBytes.get() - bytesBefore;
                            Matcher m = (apply ? ERASED : WOULD_ERASE).matcher(out);
                            if (!m.find()) {
                                throw new IllegalStateException("erase found nothing: " + out);
                            }
                            Matcher whole = READ_WHOLE.matcher(out);
                            long readWhole = whole.find() ? Long.parseLong(whole.group(2)) : 0;
                            String variant = archive.getKey() + (apply ? ", --apply" : ", dry run (the search)");
                            System.out.printf("%s %s: %.2f s, %,d bytes read (%.3f of the archive), %s, %d files read whole%n", variant,
                                    key, seconds, bytes, bytes / (double) archiveBytes, m.group(), readWhole);
                            if (r > 0) {
                                results.computeIfAbsent(variant, k -> new ArrayList<>()).add(new Round(seconds, bytes,
                                        apply ? Long.parseLong(m.group(2)) : 0, readWhole, apply ? Long.parseLong(m.group(1)) : 0));
                            }
                        }
                    }
                }
            } finally {
                producing.set(false);
                producer.join(60_000);
                job.cancel().get(2, TimeUnit.MINUTES);
            }
            write(records, partitions, fileCount, archiveBytes, baseline, results, rounds);
        }
    }

    /** Archives the topic with a batch job into {@code name}, with Bloom filters of {@code bloomFilterColumns}. */
    private static ArchiverConfig archive(BenchStack stack, String name, String bloomFilterColumns) throws Exception {
        Map<String, String> settings = BenchSettings.archiver(stack.kafka().bootstrapServers(), "people", name, stack.s3().flinkSettings());
        settings.put("mode", "batch");
        settings.put("sink.layout", "per-topic");
        settings.put("sink.time-partitioning", "hour");
        // a file per subtask and hour folder, not closed early for the batch job's buffered records
        settings.put("sink.parquet.buffer-memory", "512mb");
        settings.put("sink.parquet.bloom-filter-columns", bloomFilterColumns);
        ArchiverConfig config = ArchiverConfig.of(BenchSettings.withCommandLine(settings));
        long start = System.nanoTime();
        JobLauncher.environment(config).executeAsync(name).getJobExecutionResult().get(30, TimeUnit.MINUTES);
        System.out.printf("Archived %s in %.1f s%n", name, (System.nanoTime() - start) / 1e9);
        return config;
    }

    /** Records {@code from} up to {@code to} (while {@code going}): key {@code customer-<i mod keys>}, partitioned by key. */
    private static void produce(String bootstrap, long from, long to, long keys, AtomicBoolean going) {
        Random random = new Random(17 + from);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.LINGER_MS_CONFIG, 20,
                ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class))) {
            for (long i = from; i < to && going.get(); i++) {
                byte[] value = new byte[256];
                for (int b = 0; b < value.length; b++) {
                    value[b] = (byte) ('a' + random.nextInt(26));
                }
                // the archive's records spread over HOURS hours (a key's records hours apart); the live producer's now
                Long timestamp = to == Long.MAX_VALUE ? null : START - HOURS * 3_600_000L + i * HOURS * 3_600_000L / to;
                producer.send(new ProducerRecord<>("people", null, timestamp, ("customer-" + (i % keys)).getBytes(StandardCharsets.UTF_8), value));
                if (to == Long.MAX_VALUE && i % 100 == 0) {
                    // the live producer: about 2,000 records a second
                    try {
                        Thread.sleep(50);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }
    }

    /** {@code erase --key key [--apply]} through the command line; returns what it printed. */
    private static String erase(ArchiverConfig config, BenchStack stack, String key, boolean apply) {
        List<String> argv = new ArrayList<>(List.of("erase", "--key", key, "--log-keys", "PLAIN"));
        if (apply) {
            argv.add("--apply");
        }
        config.toMap().forEach((k, v) -> argv.add("-D" + k + "=" + v));
        stack.s3().flinkSettings().forEach((k, v) -> argv.add("-Dflink." + k + "=" + v));
        StringWriter out = new StringWriter();
        picocli.CommandLine cmd = ArchiverCli.commandLine();
        cmd.setOut(new PrintWriter(out));
        cmd.setErr(new PrintWriter(out));
        int code = cmd.execute(argv.toArray(new String[0]));
        if (code != 0) {
            throw new IllegalStateException("erase exited " + code + ": " + out);
        }
        return out.toString();
    }

    private static void write(long records, int partitions, int files, long bytes, List<Double> baseline, Map<String, List<Round>> results,
            int rounds) throws Exception {
        double base = BenchmarkReport.median(baseline);
        StringBuilder md = new StringBuilder("# Erasure of one key, " + LocalDate.now() + "\n\n")
                .append(String.format("%,d records of %,d partitions (256-byte random values, each key %d times in one partition, "
                        + "hours apart) archived by a batch job in the per-topic layout, in " + HOURS + " hour folders: %d Parquet files, %,d bytes (with key Bloom filters). Median of %d "
                        + "erasures of one key each after one warm-up (min–max), while a streaming job archives on into the archive with "
                        + "Bloom filters (about 2,000 new records a second); bytes read: what the S3 server sent. Baseline, measured in the "
                        + "same run: reading every record of the archive once. %d cores, Java %s.%s%n%n",
                        records, partitions, RECORDS_PER_KEY, files, bytes, rounds, Runtime.getRuntime().availableProcessors(),
                        System.getProperty("java.version"), BenchSettings.described()))
                .append("| variant | seconds | bytes read × the archive | files read record by record | files rewritten | records erased | time × baseline |\n")
                .append("|---|---|---|---|---|---|---|\n");
        StringBuilder csv = new StringBuilder("variant,seconds_median,bytes_read_vs_archive,files_read_whole,files_rewritten,records_erased,time_vs_baseline\n");
        for (Map.Entry<String, List<Round>> variant : results.entrySet()) {
            List<Round> r = variant.getValue();
            double seconds = BenchmarkReport.median(r.stream().map(Round::seconds).toList());
            double readShare = BenchmarkReport.median(r.stream().map(x -> x.bytes() / (double) bytes).toList());
            md.append(String.format("| %s | %.2f (%.2f–%.2f) | %.3f | %d | %d | %d | %.2f |%n", variant.getKey(), seconds,
                    r.stream().mapToDouble(Round::seconds).min().orElse(0), r.stream().mapToDouble(Round::seconds).max().orElse(0),
                    readShare, r.get(0).readWhole(), r.get(0).rewritten(), r.get(0).erased(), seconds / base));
            csv.append(String.format("%s,%.4f,%.4f,%d,%d,%d,%.4f%n", variant.getKey(), seconds, readShare, r.get(0).readWhole(),
                    r.get(0).rewritten(), r.get(0).erased(), seconds / base));
        }
        md.append(String.format("| baseline: every record read | %.2f | 1.00 | %d | 0 | 0 | 1.00 |%n", base, files));
        csv.append(String.format("baseline,%.4f,1.0,%d,0,0,1.0%n", base, files));
        Path dir = Path.of("target", "bench");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("erase.md"), md.toString());
        Files.writeString(dir.resolve("erase.csv"), csv.toString());
        System.out.println(md);
    }
}
