package io.archiver.audit;

import io.archiver.cli.ArchiverCli;
import io.archiver.config.ArchiverConfig;
import io.archiver.job.JobLauncher;
import io.archiver.record.PayloadFormats;
import io.archiver.testutils.ArchiveCounter;
import io.archiver.testutils.Await;
import io.archiver.testutils.FaultInjectingBlobStore;
import io.archiver.testutils.FaultScenario;
import io.archiver.testutils.PositionProbe;
import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TestRecords;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The audit and cleanup commands against a real archive, a real broker and a real S3 server. */
@ExtendWith(SharedStack.class)
class AuditITCase {

    @Test
    void cleanArchiveIsReportedCleanInFastAndDeepMode() throws Exception {
        ArchiverConfig config = backfill("audit-clean", 4_000, Map.of());
        for (String mode : new String[] {"--deep", "--orphan-age=PT1H"}) {
            Result r = cli(config, "audit", mode);
            System.out.println(r.out);
            assertThat(r.code).as(r.out).isZero();
            assertThat(r.out).contains("Verdict: CLEAN").contains(topic(config) + "-3");
        }
        Result json = cli(config, "audit", "--json");
        assertThat(json.out).contains("\"clean\" : true").contains("\"records\" : 1000");
    }

    @Test
    void transactionMarkersAreHolesButNotGaps() throws Exception {
        SharedStack stack = SharedStack.get();
        String topic = SharedStack.uniqueName("audit-tx");
        stack.kafka().createTopic(topic, 1);
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafka().bootstrapServers());
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, topic);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            producer.initTransactions();
            for (int t = 0; t < 3; t++) {
                producer.beginTransaction();
                for (int i = 0; i < 10; i++) {
                    producer.send(new ProducerRecord<>(topic, 0, null, ("v" + i).getBytes(StandardCharsets.UTF_8)));
                }
                producer.commitTransaction();
            }
        }
        Map<String, String> settings = stack.jobSettings(topic, topic);
        settings.put("mode", "batch");
        ArchiverConfig config = ArchiverConfig.of(settings);
        JobLauncher.environment(config).executeAsync("tx").getJobExecutionResult().get(2, TimeUnit.MINUTES);

        VerificationReport archive = stack.verifier(PayloadFormats.of(config)).verify(config.sinkPath());
        assertThat(archive.partition(topic, 0).holes()).as("commit markers leave offsets without records").isNotEmpty();
        Result r = cli(config, "audit", "--deep");
        assertThat(r.code).as(r.out).isZero();
        assertThat(r.out).contains("Verdict: CLEAN");
    }

    @Test
    void deletedAndCopiedFilesAreReportedAsGapsAndDuplicates() throws Exception {
        ArchiverConfig config = backfill("audit-damaged", 4_000, Map.of("sink.format", "jsonl", "sink.roll.max-part-size", "16kb"));
        List<ArchiveFile> files = ArchiveScanner.committedFiles(config.sinkPath());
        ArchiveFile victim = middleFile(files, 1);
        ArchiveFile copied = middleFile(files, 2);
        FileSystem fs = victim.path().getFileSystem();
        copy(copied.path(), new Path(copied.path().getParent(), "part-copy-0-0.jsonl"));
        fs.delete(victim.path(), false);

        Result r = cli(config, "audit", "--deep");
        System.out.println(r.out);
        assertThat(r.code).as(r.out).isEqualTo(1);
        assertThat(r.out).contains("Verdict: FINDINGS").contains("Missing from " + topic(config) + "-1");
        AuditReport report = new ArchiveAuditor(SharedStack.get().verifier(PayloadFormats.of(config)),
                new io.archiver.audit.KafkaInspector(kafkaProps()), Duration.ofHours(1))
                .audit(config.sinkPath(), config.topics(), "g", true);
        assertThat(report.getDuplicatedOffsets()).isEqualTo(copiedRecords(copied));
    }

    @Test
    void orphanedUploadsOfACancelledJobAreFoundAndCleanedUp() throws Exception {
        SharedStack stack = SharedStack.get();
        String topic = SharedStack.uniqueName("audit-orphans");
        stack.kafka().createTopic(topic, 2);
        TestRecords.produce(stack.kafka().bootstrapServers(), topic, 2, 0, 2_000);
        Map<String, String> settings = stack.jobSettings(topic, topic);
        settings.put("checkpoint.interval", "1 h");
        settings.remove("fencing.lease-timeout");
        ArchiverConfig config = ArchiverConfig.of(settings);
        JobClient job = JobLauncher.environment(config).executeAsync("orphans");
        ArchiveCounter counter = new ArchiveCounter(config.sinkPath(), PayloadFormats.of(config));
        Await.until("uploads started", Duration.ofSeconds(60),
                () -> !stack.verifier(PayloadFormats.of(config)).verify(config.sinkPath()).incompleteUploads().isEmpty());
        job.cancel().get(1, TimeUnit.MINUTES);
        assertThat(counter.count()).as("nothing committed without a checkpoint").isZero();

        Result audit = cli(config, "audit", "--orphan-age=PT0S");
        assertThat(audit.code).as(audit.out).isEqualTo(1);
        assertThat(audit.out).containsPattern("Orphaned multipart uploads: [1-9]");
        Result dryRun = cli(config, "cleanup", "--orphan-age=PT0S");
        assertThat(dryRun.out).contains("Would abort").contains("Run again with --apply");
        Result apply = cli(config, "cleanup", "--orphan-age=PT0S", "--apply");
        assertThat(apply.code).as(apply.out).isZero();
        assertThat(apply.out).contains("Aborting");
        assertThat(stack.verifier(PayloadFormats.of(config)).verify(config.sinkPath()).incompleteUploads()).isEmpty();
    }

    @Test
    void uploadsOfACommitCutShortAreNotOrphansCleanupKeepsThemAndTheNextStartCompletesThem() throws Exception {
        FaultInjectingBlobStore faults = SharedStack.get().s3Faults();
        try (FaultScenario s = FaultScenario.start("audit-cut", 8_000, 2_000, Map.of("parallelism", "1"))) {
            PositionProbe probe = new PositionProbe(s.config().sinkPath(), s.topic(), FaultScenario.PARTITIONS);
            s.awaitArchived(1_000);
            faults.haltCompletesAfter(0);
            Await.until("a commit cut short", Duration.ofMinutes(1), () -> !probe.uncommittedFiles().isEmpty(),
                    () -> "position records " + probe.records());
            s.cancel();
            faults.reset();

            Result audit = cli(s.config(), "audit", "--orphan-age=PT0S");
            assertThat(audit.out).containsPattern("Commits cut short \\(completed by the next start without state, not orphans\\): [1-9]");
            Result apply = cli(s.config(), "cleanup", "--orphan-age=PT0S", "--apply");
            assertThat(apply.code).as(apply.out).isZero();
            assertThat(apply.out).contains("Keeping s3://");

            s.restartWithoutState(Map.of());
            s.finish();
            assertThat(probe.uncommittedFiles()).isEmpty();
        } finally {
            faults.reset();
        }
    }

    // ------------------------------------------------------------------ helpers

    private static ArchiverConfig backfill(String name, int records, Map<String, String> overrides) throws Exception {
        SharedStack stack = SharedStack.get();
        String topic = SharedStack.uniqueName(name);
        stack.kafka().createTopic(topic, 4);
        TestRecords.produce(stack.kafka().bootstrapServers(), topic, 4, 0, records);
        Map<String, String> settings = stack.jobSettings(topic, topic);
        settings.put("mode", "batch");
        settings.putAll(overrides);
        ArchiverConfig config = ArchiverConfig.of(settings);
        JobLauncher.environment(config).executeAsync(name).getJobExecutionResult().get(2, TimeUnit.MINUTES);
        return config;
    }

    /** A file of the partition that is neither its first nor its last, so deleting it opens a hole. */
    private static ArchiveFile middleFile(List<ArchiveFile> files, int partition) throws Exception {
        ArchiveFileReader reader = new ArchiveFileReader(PayloadFormats.BYTES);
        List<ArchiveFile> ofPartition = new ArrayList<>();
        Map<ArchiveFile, Long> firstOffset = new java.util.HashMap<>();
        for (ArchiveFile f : files) {
            if (f.partition() == partition) {
                ofPartition.add(f);
                firstOffset.put(f, reader.readAll(f.path()).get(0).getOffset());
            }
        }
        assertThat(ofPartition).as("files of partition " + partition).hasSizeGreaterThan(2);
        ofPartition.sort(java.util.Comparator.comparing(firstOffset::get));
        return ofPartition.get(1);
    }

    private static String topic(ArchiverConfig config) {
        return config.topics().get(0);
    }

    private static Properties kafkaProps() {
        Properties p = new Properties();
        p.setProperty("bootstrap.servers", SharedStack.get().kafka().bootstrapServers());
        return p;
    }

    private static long copiedRecords(ArchiveFile file) throws Exception {
        return new ArchiveFileReader(PayloadFormats.BYTES).count(file.path());
    }

    private static void copy(Path from, Path to) throws Exception {
        FileSystem fs = from.getFileSystem();
        try (FSDataInputStream in = fs.open(from); FSDataOutputStream out = fs.create(to, FileSystem.WriteMode.NO_OVERWRITE)) {
            in.transferTo(out);
        }
    }

    private static final class Result {
        final int code;
        final String out;

        Result(int code, String out) {
            this.code = code;
            this.out = out;
        }
    }

    /** Runs a CLI command in this JVM with the job's settings as -D overrides and the S3 settings as flink.*. */
    private static Result cli(ArchiverConfig config, String... args) {
        List<String> argv = new ArrayList<>(List.of(args));
        config.toMap().forEach((k, v) -> argv.add("-D" + k + "=" + v));
        SharedStack.get().s3().flinkSettings().forEach((k, v) -> argv.add("-Dflink." + k + "=" + v));
        StringWriter out = new StringWriter();
        CommandLine cmd = ArchiverCli.commandLine();
        cmd.setOut(new PrintWriter(out));
        cmd.setErr(new PrintWriter(out));
        int code = cmd.execute(argv.toArray(new String[0]));
        return new Result(code, out.toString());
    }
}
