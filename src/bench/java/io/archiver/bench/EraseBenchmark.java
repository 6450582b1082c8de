package io.archiver.bench;

import io.archiver.archive.ArchiveFile;
import io.archiver.archive.ArchiveFileReader;
import io.archiver.cli.ArchiverCli;
import io.archiver.config.ArchiverConfig;
import io.archiver.job.JobLauncher;
import io.archiver.local.EmbeddedKafka;
import io.archiver.record.PayloadFormats;
import io.archiver.table.TableArchiveFiles;

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
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Cost of {@code erase}: an archive of {@code bench.erase.records} records (default 400,000; 8 partitions, 256-byte
 * random values, keys repeating every 49,999 records, so each key has 8 records spread over the partitions) in Parquet
 * files of about 1 MB, from which one key after another is erased with the command line ({@code erase --key K --apply}),
 * against the baseline measured in the same run: reading every record of the archive once. Reports the median time
 * (min–max) of the erasures, the bytes they read and rewrote against the archive's, and the ratio to the baseline.
 * Writes {@code target/bench/erase.md} and {@code .csv}.
 *
 * <p>{@code mvn -q -DskipTests package exec:exec@bench -Dbench.class=EraseBenchmark
 * [-Dbench.args="-Dbench.erase.records=400000 -Dbench.rounds=3"]}
 */
public final class EraseBenchmark {

    private static final int PARTITIONS = 8;
    /** Keys: each repeats every this many records, over the partitions (not a multiple of them). */
    private static final int KEYS = 49_999;
    private static final Pattern ERASED = Pattern.compile("Erased (\\d+) records from (\\d+) files");

    public static void main(String[] args) throws Exception {
        run();
        System.exit(0);
    }

    /** Runs the benchmark and writes its report under {@code target/bench}. */
    static void run() throws Exception {
        long records = Long.getLong("bench.erase.records", 400_000);
        int rounds = Integer.getInteger("bench.rounds", 3);
        Path work = BenchStack.workFolder("erase-bench");
        try (BenchStack stack = BenchStack.start(work)) {
            EmbeddedKafka kafka = stack.kafka();
            kafka.createTopic("people", PARTITIONS);
            produce(kafka.bootstrapServers(), records);
            Map<String, String> settings = BenchSettings.archiver(kafka.bootstrapServers(), "people", "erase", stack.s3().flinkSettings());
            settings.put("mode", "batch");
            settings.put("sink.roll.max-part-size", "1mb");
            ArchiverConfig config = ArchiverConfig.of(BenchSettings.withCommandLine(settings));
            JobLauncher.environment(config).executeAsync("erase-bench").getJobExecutionResult().get(30, TimeUnit.MINUTES);

            List<ArchiveFile> files = TableArchiveFiles.of(config).list().committed();
            long archiveBytes = ArchiveFile.byPath(files).values().stream().mapToLong(f -> f.get(0).size()).sum();
            int fileCount = ArchiveFile.byPath(files).size();
            ArchiveFileReader reader = new ArchiveFileReader(PayloadFormats.of(config));
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

            List<Double> erasures = new ArrayList<>();
            long erased = 0;
            long rewrittenFiles = 0;
            for (int r = 0; r <= rounds; r++) {
                String key = "key-" + (r * 977 + 13);
                long start = System.nanoTime();
                String out = erase(config, stack, key);
                double seconds = (System.nanoTime() - start) / 1e9;
                Matcher m = ERASED.matcher(out);
                if (!m.find()) {
                    throw new IllegalStateException("erase did not erase: " + out);
                }
                if (r > 0) {
                    erasures.add(seconds);
                    erased += Long.parseLong(m.group(1));
                    rewrittenFiles += Long.parseLong(m.group(2));
                }
                System.out.printf("erase %s: %.2f s, %s%n", key, seconds, m.group());
            }
            write(records, fileCount, archiveBytes, baseline, erasures, erased / rounds, rewrittenFiles / rounds, rounds);
        }
    }

    private static void produce(String bootstrap, long count) {
        java.util.Random random = new java.util.Random(17);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.LINGER_MS_CONFIG, 20,
                ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class))) {
            for (long i = 0; i < count; i++) {
                byte[] value = new byte[256];
                for (int b = 0; b < value.length; b++) {
                    value[b] = (byte) ('a' + random.nextInt(26));
                }
                producer.send(new ProducerRecord<>("people", (int) (i % PARTITIONS), ("key-" + (i % KEYS)).getBytes(StandardCharsets.UTF_8), value));
            }
        }
    }

    /** {@code erase --key key --apply} through the command line; returns what it printed. */
    private static String erase(ArchiverConfig config, BenchStack stack, String key) {
        List<String> argv = new ArrayList<>(List.of("erase", "--key", key, "--apply", "--log-keys", "PLAIN"));
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

    private static void write(long records, int files, long bytes, List<Double> baseline, List<Double> erasures, long erased,
            long rewritten, int rounds) throws Exception {
        double base = BenchmarkReport.median(baseline);
        double erase = BenchmarkReport.median(erasures);
        String md = "# Erasure of one key, " + LocalDate.now() + "\n\n"
                + String.format("%,d records (8 partitions, 256-byte random values, each key 8 times over the partitions) in %d Parquet files, %,d bytes. "
                        + "Median of %d erasures of one key each after one warm-up (min–max); the baseline, measured in the same run: "
                        + "reading every record of the archive once. %d cores, Java %s.%s%n%n",
                        records, files, bytes, rounds, Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"),
                        BenchSettings.described())
                + "| variant | seconds | bytes read × the archive | files rewritten | records erased | time × baseline |\n|---|---|---|---|---|---|\n"
                + String.format("| erase --key K --apply | %.2f (%.2f–%.2f) | 1.00 (every file read whole) | %d | %d | %.2f |%n", erase,
                        erasures.stream().mapToDouble(d -> d).min().orElse(0), erasures.stream().mapToDouble(d -> d).max().orElse(0),
                        rewritten, erased, erase / base)
                + String.format("| baseline: every record read | %.2f | 1.00 | 0 | 0 | 1.00 |%n", base);
        String csv = "variant,seconds_median,time_vs_baseline,files_rewritten,records_erased\n"
                + String.format("erase,%.4f,%.4f,%d,%d%nbaseline,%.4f,1.0,0,0%n", erase, erase / base, rewritten, erased, base);
        Path dir = Path.of("target", "bench");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("erase.md"), md);
        Files.writeString(dir.resolve("erase.csv"), csv);
        System.out.println(md);
    }
}
