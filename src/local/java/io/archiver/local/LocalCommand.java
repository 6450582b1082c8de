package io.archiver.local;

import io.archiver.archive.ArchiveVerifier;
import io.archiver.archive.IncompleteUploads;
import io.archiver.archive.PartitionReport;
import io.archiver.archive.VerificationReport;
import io.archiver.cli.ArchiverCli;
import io.archiver.cli.ConfigArgs;
import io.archiver.cli.DefaultLogging;
import io.archiver.config.ArchiverConfig;
import io.archiver.job.JobLauncher;
import io.archiver.record.PayloadFormats;
import io.archiver.table.TableArchiveFiles;

import org.apache.flink.core.execution.JobClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.archiver.config.JobOptions.JOB_NAME;
import static io.archiver.config.SourceOptions.KAFKA_BOOTSTRAP_SERVERS;
import static io.archiver.config.SourceOptions.KAFKA_GROUP_ID;

/**
 * Runs the archiver on an embedded local stack: a real Kafka broker and a real S3-compatible server on
 * 127.0.0.1, a demo topic with sample records, and the archiver in a local Flink with its web UI. Prints
 * what was archived, then keeps running until Ctrl-C (or stops at once with {@code --once}). Development
 * tooling: built with the tests ({@code src/local}), never part of the job jar.
 */
@Command(name = "local", mixinStandardHelpOptions = true, description = "Run the archiver on an embedded Kafka + S3 + Flink stack.")
public final class LocalCommand implements java.util.concurrent.Callable<Integer> {

    public static void main(String[] args) {
        DefaultLogging.useUnlessConfigured();
        System.exit(ArchiverCli.withErrorHandling(new LocalCommand()).execute(args));
    }

    @Option(names = "--records", defaultValue = "10000", description = "Sample records to produce (default ${DEFAULT-VALUE}).")
    int records;

    @Option(names = "--partitions", defaultValue = "4", description = "Partitions of the demo topic (default ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--topic", defaultValue = "demo", description = "Demo topic (default ${DEFAULT-VALUE}).")
    String topic;

    @Option(names = "--work-dir", defaultValue = "local-run", description = "Working folder for Kafka, S3 and checkpoint data (default ${DEFAULT-VALUE}).")
    Path workDir;

    @Option(names = "--s3-port", defaultValue = "9000", description = "Port of the S3-compatible server; 0 picks a free one (default ${DEFAULT-VALUE}).")
    int s3Port;

    @Option(names = "--ui-port", defaultValue = "8081", description = "Port of Flink's web UI (default ${DEFAULT-VALUE}).")
    int uiPort;

    @Option(names = "--timeout", defaultValue = "PT3M", description = "How long to wait for every sample record to be archived (default ${DEFAULT-VALUE}).")
    Duration timeout;

    @Option(names = "--once", description = "Stop after printing what was archived, instead of running until Ctrl-C.")
    boolean once;

    @Option(names = "--restore-demo", description = "After archiving: delete the topic and restore it from the archive with a consumer "
            + "group placed where it was (restore --create-topics --consumer-groups), then verify the restore; then stop.")
    boolean restoreDemo;

    @Option(names = "--avro-demo", description = "Archive an Avro topic through a real Schema Registry whose schema evolves while "
            + "records are produced (record.value.format: avro), then query the typed columns with DuckDB and stop.")
    boolean avroDemo;

    @Option(names = "--iceberg-demo", description = "Archive the topic into an Iceberg table too (table.format: iceberg, a SQLite "
            + "catalog in the work folder, hour folders): records of yesterday, late records of the same hours and records of now in three "
            + "rounds, then compact the table next to the job, print its snapshots and query the current snapshot's files with DuckDB; then stop.")
    boolean icebergDemo;

    @Option(names = "--secure", description = "Run the stack secured as production clusters are: Kafka over TLS with a SCRAM user "
            + "limited by ACLs, S3 over HTTPS, certificates of a private CA made at start, SSE-KMS required of every object; "
            + "writes the archiver's secured configuration to <work-dir>/archiver-secure.yaml.")
    boolean secure;

    @Option(names = "--brokers", defaultValue = "1", description = "Kafka brokers: 1 (default, in this JVM) or 3 (a cluster as production "
            + "runs one: three brokers and a KRaft controller, each a process of its own, replication 3, min.insync.replicas 2; kill a broker "
            + "and watch the job archive on).")
    int brokers;

    @Mixin ConfigArgs config;

    @Spec CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        Instant started = Instant.now();
        if ((avroDemo ? 1 : 0) + (restoreDemo ? 1 : 0) + (icebergDemo ? 1 : 0) > 1) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                    "--avro-demo, --restore-demo and --iceberg-demo are separate demos: run one at a time.");
        }
        if (secure && restoreDemo) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                    "--restore-demo runs on the plain stack; leave out --secure (restore on a secured cluster takes the same kafka.properties.*).");
        }
        if (brokers != 1 && brokers != 3) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--brokers " + brokers + ": give 1 (a broker in this JVM) or 3 "
                    + "(a cluster of their own processes).");
        }
        if (brokers > 1 && secure) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--secure runs on one broker; leave out --brokers 3.");
        }
        out.println("Starting Kafka" + (brokers > 1 ? " (" + brokers + " brokers and a controller, each a process of its own)" : "")
                + " and the S3-compatible server" + (secure ? ", secured," : "") + " (data in " + workDir.toAbsolutePath() + ") ...");
        out.flush();
        LocalStack stack = secure ? LocalStack.startSecured(workDir, s3Port)
                : brokers > 1 ? LocalStack.startCluster(workDir, s3Port, brokers) : LocalStack.start(workDir, s3Port);
        JobClient job = null;
        AvroDemo avro = null;
        try {
            Map<String, String> settings = stack.archiverSettings(topic, uiPort);
            if (avroDemo) {
                avro = AvroDemo.start(out, topic);
                avro.addSettings(settings);
            }
            IcebergDemo iceberg = icebergDemo ? new IcebergDemo(workDir) : null;
            if (iceberg != null) {
                iceberg.addSettings(settings);
            }
            RestoreDemo demo = restoreDemo ? new RestoreDemo(stack.kafka().bootstrapServers(), topic, partitions) : null;
            if (demo != null) {
                demo.addSettings(settings);
            }
            ArchiverConfig cfg = config.load(settings);
            stack.createTopic(topic, partitions, cfg.get(KAFKA_GROUP_ID));
            if (avro != null) {
                avro.produce(out, stack.producerClient(), records);
            } else if (iceberg != null) {
                iceberg.produceFirst(stack.producerClient(), topic, records);
            } else {
                SampleData.produce(stack.producerClient(), topic, records);
            }
            // the Iceberg demo produces the rest in two more rounds while the job runs
            int produced = iceberg != null ? records / 3 : records;
            out.printf("Kafka at %s: produced %d records to topic '%s' (%d partitions).%n",
                    cfg.get(KAFKA_BOOTSTRAP_SERVERS), produced, topic, partitions);
            if (!stack.brokerProcesses().isEmpty()) {
                out.printf("Kafka brokers (broker id: process id) %s, logs in %s: kill one (kill -9 <pid>) and the job archives on from "
                        + "the other replicas.%n", stack.brokerProcesses(), workDir.toAbsolutePath().resolve("kafka"));
            }
            out.printf("S3 at %s, bucket '%s' (access key %s).%n",
                    stack.s3().endpoint(), LocalStack.BUCKET, EmbeddedS3.ACCESS_KEY);
            if (secure) {
                printSecured(out, stack, cfg);
            }
            if (demo != null) {
                demo.groupHalfWay(out);
            }
            job = JobLauncher.environment(cfg).executeAsync(cfg.get(JOB_NAME));
            out.printf("Archiver job %s running; Flink web UI %s%n", job.getJobID(),
                    uiPort == 0 ? "on a port chosen at start (--ui-port 0)" : "at http://localhost:" + uiPort);
            out.flush();
            VerificationReport summary = awaitArchived(cfg, job, produced, Instant.now().plus(timeout));
            print(out, cfg, stack, summary, Duration.between(started, Instant.now()));
            if (summary.records() != produced) {
                out.printf("Only %d of %d records were archived within %s.%n", summary.records(), produced, timeout);
                return 1;
            }
            if (secure) {
                printEncryption(out, stack);
            }
            if (avro != null) {
                avro.query(out, stack.s3().dataDir().resolve(LocalStack.BUCKET));
            }
            if (iceberg != null) {
                boolean shown = iceberg.show(out, cfg, stack.producerClient(), topic, records, stack.s3().dataDir().resolve(LocalStack.BUCKET),
                        Instant.now().plus(timeout));
                job.cancel().get(30, TimeUnit.SECONDS);
                return shown ? 0 : 1;
            }
            if (demo != null) {
                boolean captured = demo.awaitGroupArchived(out, cfg, Instant.now().plus(timeout));
                job.cancel().get(30, TimeUnit.SECONDS);
                return captured ? demo.deleteAndRestore(out, cfg.toMap(), workDir) : 1;
            }
            if (!once && avro == null) {
                awaitCtrlC(out, job, stack);
                return 0;
            }
            job.cancel().get(30, TimeUnit.SECONDS);
            return 0;
        } finally {
            if (avro != null) {
                avro.close();
            }
            if (once || restoreDemo || avroDemo || icebergDemo || job == null) {
                stack.close();
            }
        }
    }

    /** Polls the archive until {@code records} are there, the job ends or the deadline passes. */
    private static VerificationReport awaitArchived(ArchiverConfig cfg, JobClient job, int records, Instant deadline) throws Exception {
        ArchiveVerifier verifier = new ArchiveVerifier(PayloadFormats.of(cfg), IncompleteUploads.NONE);
        VerificationReport summary = verifier.verify(TableArchiveFiles.of(cfg), false);
        while (summary.records() < records && Instant.now().isBefore(deadline)) {
            if (job.getJobStatus().get().isGloballyTerminalState()) {
                job.getJobExecutionResult().get();
                throw new IllegalStateException("The archiver job ended before every record was archived.");
            }
            TimeUnit.MILLISECONDS.sleep(500);
            summary = verifier.verify(TableArchiveFiles.of(cfg), false);
        }
        return summary;
    }

    private static void print(PrintWriter out, ArchiverConfig cfg, LocalStack stack, VerificationReport s, Duration took) {
        out.printf("%nArchived %d records in %d files (%d bytes) under %s in %.1f s:%n",
                s.records(), s.files(), s.bytes(), cfg.sinkPath(), took.toMillis() / 1000.0);
        out.printf("  %-24s %6s %8s %12s %12s%n", "topic-partition", "files", "records", "first offset", "last offset");
        for (PartitionReport p : s.partitions().values()) {
            out.printf("  %-24s %6d %8d %12d %12d%n",
                    p.topic() + "-" + p.partition(), p.files().size(), p.records(), p.firstOffset(), p.lastOffset());
        }
        out.printf("Files on disk: %s%n", stack.s3().dataDir().resolve(LocalStack.BUCKET));
        out.flush();
    }

    /** Writes the secured run's configuration (secrets referenced, never included) and says how it is secured. */
    private void printSecured(PrintWriter out, LocalStack stack, ArchiverConfig cfg) throws java.io.IOException {
        Path file = workDir.toAbsolutePath().resolve("archiver-secure.yaml");
        StringBuilder yaml = new StringBuilder("# The secured local run's configuration (kafka-s3-archiver local --secure).\n"
                + "# Secrets are read from the file the ${file:...} references name, by Kafka's FileConfigProvider.\n"
                + "# flink.s3.* are the local S3 server's; on AWS leave the keys out and let the credential chain\n"
                + "# (environment, instance or pod role) provide them.\n");
        new java.util.TreeMap<>(cfg.toMap()).forEach((key, value) -> {
            if (!key.startsWith("flink.rest.")) {
                yaml.append(key).append(": '").append(value.replace("'", "''")).append("'\n");
            }
        });
        java.nio.file.Files.writeString(file, yaml.toString());
        out.printf("Secured: Kafka SASL_SSL (SCRAM-SHA-512 user '%s', ACLs: Read on the topic and the group), S3 over HTTPS, "
                + "certificates of a private CA (%s), SSE-KMS required.%n", LocalStack.KAFKA_USER, stack.caCertificate());
        out.printf("The archiver's configuration: %s (secrets in %s, referenced, never copied).%n",
                file, workDir.toAbsolutePath().resolve("secrets"));
    }

    /** What the S3 server received: every object-creating request and its encryption headers. */
    private static void printEncryption(PrintWriter out, LocalStack stack) {
        List<EncryptionRecordingBlobStore.Write> writes = stack.objectWrites();
        long withKey = writes.stream()
                .filter(w -> "aws:kms".equals(w.encryption()) && LocalStack.KMS_KEY.equals(w.kmsKeyId())).count();
        out.printf("S3 received %d requests creating objects, %d of them with SSE-KMS and key %s "
                + "(S3Proxy records the headers; S3 itself would encrypt).%n", writes.size(), withKey, LocalStack.KMS_KEY);
        writes.stream().filter(w -> !"aws:kms".equals(w.encryption()) || !LocalStack.KMS_KEY.equals(w.kmsKeyId()))
                .forEach(w -> out.printf("  without: %s %s (%s, %s)%n", w.kind(), w.key(), w.encryption(), w.kmsKeyId()));
        out.flush();
    }

    private static void awaitCtrlC(PrintWriter out, JobClient job, LocalStack stack) throws InterruptedException {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                job.cancel().get(30, TimeUnit.SECONDS);
                stack.close();
                out.println("Stopped: job cancelled, Kafka and S3 stopped; the archive stays under " + stack.workDir());
                out.flush();
            } catch (Exception e) {
                System.err.println("Error while stopping: " + e);
            } finally {
                stopped.countDown();
            }
        }, "local-stack-shutdown"));
        out.println("Still archiving new records (produce more with any Kafka client). Press Ctrl-C to stop.");
        out.flush();
        stopped.await();
    }
}
