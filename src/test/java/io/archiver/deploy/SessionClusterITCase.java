package io.archiver.deploy;

import io.archiver.config.ArchiverConfig;
import io.archiver.config.SinkLayout;
import io.archiver.local.EmbeddedS3;
import io.archiver.local.SessionCluster;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;
import io.archiver.testutils.ArchiveAssertions;
import io.archiver.testutils.ArchiveCounter;
import io.archiver.testutils.Await;
import io.archiver.testutils.Checkpoints;
import io.archiver.testutils.ContinuousProducer;
import io.archiver.testutils.KafkaTopicReader;
import io.archiver.testutils.LongRunning;
import io.archiver.testutils.MonitoringQueries;
import io.archiver.testutils.PrometheusServer;
import io.archiver.testutils.S3Faults;
import io.archiver.testutils.SessionClusters;
import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TableContents;
import io.archiver.testutils.TestRecords;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The shaded job jar on a real Flink standalone session cluster: JobManager and TaskManager as separate
 * JVMs started from Maven artifacts, jobs submitted and stopped with Flink's CLI, a TaskManager killed with
 * SIGKILL. Kafka and S3 are the shared test stack, reached over 127.0.0.1.
 */
@ExtendWith(SharedStack.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@LongRunning(seconds = 199)
class SessionClusterITCase {

    @org.junit.jupiter.api.io.TempDir
    static java.nio.file.Path catalogs;

    private static final PayloadFormats FORMATS = PayloadFormats.BYTES;
    /** The jobs' checkpoint interval ({@link #args}): the alert rules are scaled to it. */
    private static final Duration CHECKPOINT_INTERVAL = Duration.ofSeconds(1);
    private static SessionCluster cluster;

    private static int prometheus;
    /** A real Prometheus scraping the cluster's reporters, with the shipped alert rules scaled to the jobs' checkpoints. */
    private static PrometheusServer server;

    @BeforeAll
    static void startCluster() throws Exception {
        prometheus = SessionClusters.freePort();
        cluster = SessionClusters.start("cluster", prometheus);
        Await.until("the JobManager's and the TaskManager's Prometheus reporters started", Duration.ofMinutes(1),
                () -> reporterPorts().size() >= 2);
        List<String> reporters = reporterPorts().stream().map(port -> "127.0.0.1:" + port).toList();
        assertThat(reporters).as("the JobManager's and the TaskManager's Prometheus reporters").hasSize(2);
        server = PrometheusServer.start(reporters, MonitoringQueries.alertRulesScaledTo(CHECKPOINT_INTERVAL));
    }

    @AfterAll
    static void stopCluster() throws Exception {
        if (server != null) {
            server.close();
        }
        if (cluster != null) {
            cluster.stop();
        }
    }

    /**
     * A job's life as an operator sees it on a fresh cluster, start to stop with a savepoint, through a real
     * Prometheus: every query of the shipped dashboard returns series, no alert fires, and up to the stop neither the
     * cluster's processes nor the client log a single WARN or ERROR line (the stop itself may overtake a periodic
     * checkpoint, whose abort Flink logs: docs/operations.md#a-clean-log).
     */
    @Test
    @Order(0)
    void aNormalRunFillsEveryDashboardPanelRaisesNoAlertAndLogsNoWarningOrError() throws Exception {
        SharedStack stack = SharedStack.get();
        String topic = newTopic("normal-run");
        String root = archiveOf(topic);
        List<ArchiveRecord> records = TestRecords.produce(stack.kafka().bootstrapServers(), topic, 2, 0, 2_000);
        // with the topic's Iceberg table: its panel has series, and its commits log nothing above INFO either
        String jobId = cluster.submit(jar(), withTable(args(topic, root, 2), "jdbc:sqlite:" + catalogs.resolve("normal-run.db")));
        try {
            ArchiveCounter counter = new ArchiveCounter(root, FORMATS);
            Await.until("records archived by the cluster job", Duration.ofMinutes(2), () -> counter.count() >= records.size());
            TestRecords.produce(stack.kafka().bootstrapServers(), topic, 2, 2_000, 100);

            Await.until("every dashboard query answered with series by Prometheus", Duration.ofMinutes(1),
                    () -> emptyDashboardQueries().isEmpty(), () -> "no series for " + emptyDashboardQueries());
            assertThat(server.alerts()).as("alerts of a healthy job").noneMatch(a -> a.state().equals("firing"));
            assertThat(warningsAndErrors()).as("WARN and ERROR lines the cluster and its client logged up to the stop").isEmpty();
            cluster.stopWithSavepoint(jobId, "s3://" + SharedStack.BUCKET + "/cluster/savepoints");
            jobId = null;
        } finally {
            if (jobId != null) {
                cluster.cancel(jobId);
            }
        }
        ArchiveAssertions.assertExactlyOnce(root, FORMATS, KafkaTopicReader.readAll(stack.kafka().bootstrapServers(), topic));
    }

    /**
     * The shipped alert rules (their durations scaled to 1 s checkpoints) in a real Prometheus scraping a real job,
     * for real faults: records dead-lettered, commits refused by S3 while records arrive (no commit), the job
     * cancelled (gone). Each fires, and "no commit" ends when S3 is back. (A TaskManager killed, metrics down: the
     * next test, which kills it anyway.)
     */
    @Test
    @Order(1)
    void theShippedAlertsFireInPrometheusForRealFaults() throws Exception {
        SharedStack stack = SharedStack.get();
        String topic = newTopic("alerts");
        String root = archiveOf(topic);
        TestRecords.produce(stack.kafka().bootstrapServers(), topic, 2, 0, 500);
        List<String> args = new ArrayList<>(List.of(args(topic, root, 2)));
        args.addAll(List.of("-D", "record.value.format=json", "-D", "errors.policy=dead-letter", "-D", "restart.attempts=1000"));
        String jobId = cluster.submit(jar(), args.toArray(new String[0]));
        try {
            ArchiveCounter counter = new ArchiveCounter(root, FORMATS);
            Await.until("records archived by the cluster job", Duration.ofMinutes(2), () -> counter.count() >= 500);
            String job = jobName(jobId);
            Map<String, String> ofJob = Map.of("job_name", job);

            try (var producer = TestRecords.producer(stack.kafka().bootstrapServers())) {
                for (int i = 0; i < 3; i++) {
                    producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topic, i % 2, null,
                            "{not json".getBytes(java.nio.charset.StandardCharsets.UTF_8))).get();
                }
            }
            awaitFiring("ArchiverDeadLetters", ofJob);

            S3Faults s3 = stack.s3Faults(topic);
            s3.haltCompletesAfter(0);
            // records keep arriving (500 a second) while S3 refuses to complete the uploads
            try (ContinuousProducer producer = new ContinuousProducer(stack.kafka().bootstrapServers(), topic, 2, 200_000, 500)) {
                awaitFiring("ArchiverNoCommit", ofJob);
                stack.healS3Faults(topic);
                Await.until("ArchiverNoCommit to end once S3 completes uploads again", Duration.ofMinutes(1),
                        () -> !server.firing("ArchiverNoCommit", ofJob), () -> "alerts: " + server.alerts());
            }

            cluster.cancel(jobId);
            jobId = null;
            awaitFiring("ArchiverJobGone", ofJob);
        } finally {
            stack.healS3Faults(topic);
            if (jobId != null) {
                cluster.cancel(jobId);
            }
        }
    }

    /**
     * One job per layout through both process kills: a TaskManager killed (SIGKILL) while records arrive, the job
     * recovering on a new one, its commit metrics on the Prometheus endpoints; then the JobManager killed (a
     * standalone cluster without HA forgets its jobs), records arriving while it is down, the job resubmitted from
     * its retained checkpoint. Exactly once, record by record, after each.
     */
    @ParameterizedTest
    @EnumSource(SinkLayout.class)
    @Order(2)
    void submittedJarSurvivesATaskManagerKillThenAJobManagerKillAndResubmitFromTheRetainedCheckpointExactlyOnce(SinkLayout layout) throws Exception {
        SharedStack stack = SharedStack.get();
        String topic = SharedStack.uniqueName("cluster");
        stack.kafka().createTopic(topic, 4);
        String root = "s3://" + SharedStack.BUCKET + "/" + topic;
        try (ContinuousProducer producer = new ContinuousProducer(stack.kafka().bootstrapServers(), topic, 4, 20_000, 2_000)) {
            String catalog = "jdbc:sqlite:" + catalogs.resolve("cluster-" + layout.configName() + ".db");
            String jobId = cluster.submit(jar(), withTable(withLayout(args(topic, root, 2), layout), catalog));
            String running = jobId;
            try {
                ArchiveCounter counter = new ArchiveCounter(root, FORMATS);
                Await.until("records archived by the cluster job", Duration.ofMinutes(2), () -> counter.count() >= 4_000);

                cluster.killTaskManagers();
                if (layout == SinkLayout.PER_PARTITION) {
                    // the shipped alert rules in the real Prometheus: the TaskManager it scrapes is gone
                    awaitFiring("ArchiverMetricsDown", Map.of());
                }
                cluster.startTaskManager();
                cluster.awaitTaskManagers(1, Duration.ofMinutes(2));

                assertEverythingArchivedOnce(producer, topic, root, counter);
                // the lost TaskManager's heartbeat times out (10 s) after the job already recovered on the new
                // one, which may restart it once more: running again, not running at this instant
                Await.until("the job running again after the failover", Duration.ofMinutes(1), () -> cluster.jobStatus(jobId).equals("RUNNING"));
                // A few records after the failover: the restored job's metrics start at its first commit, and
                // the producer may have finished before the kill.
                TestRecords.produce(stack.kafka().bootstrapServers(), topic, 4, 20_000, 8);
                Await.until("commit metrics of " + topic + " on the Prometheus endpoints", Duration.ofMinutes(1),
                        () -> {
                            // the reporter writes '-' in label values as '_'
                            String metrics = prometheusMetrics();
                            return metrics.contains("archivedFiles") && metrics.contains("lastArchivedOffset{")
                                    && metrics.contains("topic=\"" + topic.replace('-', '_') + "\"") && metrics.matches("(?s).*archiveLag\\{[^}]*\\} 0\\.0.*");
                        },
                        () -> "exported TaskManager metrics: " + prometheusMetrics().lines()
                                .filter(l -> l.startsWith("flink_taskmanager_job_task_operator") && l.indexOf('{') > 0
                                        && l.substring(0, l.indexOf('{')).matches(".*(rchived|archiveLag).*"))
                                .limit(12).collect(java.util.stream.Collectors.joining("\n")));
                // every metric the shipped dashboard and alert rules query is one the job exports under that name
                Set<String> exported = prometheusMetrics().lines().filter(l -> !l.startsWith("#") && l.indexOf('{') > 0)
                        .map(l -> l.substring(0, l.indexOf('{'))).collect(Collectors.toCollection(TreeSet::new));
                assertThat(exported).as("metrics exported by the JobManager and TaskManagers")
                        .containsAll(MonitoringQueries.metricNames());

                cluster.killJobManager();
                running = null;
                TestRecords.produce(stack.kafka().bootstrapServers(), topic, 4, 30_000, 2_000);
                cluster.startJobManager();
                cluster.awaitTaskManagers(1, Duration.ofMinutes(2));
                String checkpoint = Checkpoints.latest("s3://" + SharedStack.BUCKET + "/cluster/checkpoints/" + jobId);
                running = cluster.submitFrom(checkpoint, jar(), withTable(withLayout(args(topic, root, 2), layout), catalog));
                assertEverythingArchivedOnce(producer, topic, root, counter);
                assertTableEqualsTopic(topic, root, catalog);
            } finally {
                if (running != null) {
                    cluster.cancel(running);
                }
            }
        }
    }

    @Test
    @Order(3)
    void upgradeFromSavepointAddsATopicAndChangesParallelismExactlyOnce() throws Exception {
        SharedStack stack = SharedStack.get();
        String topic = SharedStack.uniqueName("upgrade");
        String added = SharedStack.uniqueName("upgrade-added");
        stack.kafka().createTopic(topic, 4);
        stack.kafka().createTopic(added, 2);
        String root = "s3://" + SharedStack.BUCKET + "/" + topic;
        io.archiver.testutils.TestRecords.produce(stack.kafka().bootstrapServers(), topic, 4, 0, 3_000);
        io.archiver.testutils.TestRecords.produce(stack.kafka().bootstrapServers(), added, 2, 0, 1_000);

        // a lease that outlives the test's patience: the upgraded job must not wait for it to expire
        String[] v1Args = withLongLease(args(topic, root, 1));
        String v1 = cluster.submit(jar(), v1Args);
        ArchiveCounter counter = new ArchiveCounter(root, FORMATS);
        Await.until("version 1 archived its topic", Duration.ofMinutes(2), () -> counter.count() >= 3_000);
        io.archiver.testutils.TestRecords.produce(stack.kafka().bootstrapServers(), topic, 4, 3_000, 2_000);
        String savepoint = cluster.stopWithSavepoint(v1, "s3://" + SharedStack.BUCKET + "/cluster/savepoints");
        io.archiver.testutils.TestRecords.produce(stack.kafka().bootstrapServers(), topic, 4, 5_000, 2_000);

        List<String> v2Args = new ArrayList<>(List.of(args(topic + "," + added, root, 2)));
        v2Args.addAll(List.of("-D", "sink.roll.inactivity=30 s", "-D", "sink.time-partitioning=hour"));
        long submitted = System.nanoTime();
        String v2 = cluster.submitFrom(savepoint, jar(), withLongLease(v2Args.toArray(new String[0])));
        assertThat(Duration.ofNanos(System.nanoTime() - submitted))
                .as("the upgraded job takes the lease of the stopped one at once, not after its %s timeout", LONG_LEASE)
                .isLessThan(Duration.ofSeconds(40));
        List<ArchiveRecord> inKafka = new ArrayList<>(KafkaTopicReader.readAll(stack.kafka().bootstrapServers(), topic));
        inKafka.addAll(KafkaTopicReader.readAll(stack.kafka().bootstrapServers(), added));
        Await.until("both topics archived after the upgrade", Duration.ofMinutes(3), () -> counter.count() >= inKafka.size());
        cluster.stopWithSavepoint(v2, "s3://" + SharedStack.BUCKET + "/cluster/savepoints");
        ArchiveAssertions.assertExactlyOnce(root, FORMATS, inKafka);
    }

    @Test
    @Order(4)
    void aJobThatSetsTheClustersFileSystemIsRefusedAtSubmission() throws Exception {
        String topic = SharedStack.uniqueName("cluster-settings");
        SharedStack.get().kafka().createTopic(topic, 1);
        List<String> args = new ArrayList<>(List.of(args(topic, "s3://" + SharedStack.BUCKET + "/" + topic, 1)));
        args.addAll(List.of("-D", "flink.s3.secret-key=not-the-clusters"));
        assertThatThrownBy(() -> cluster.submit(jar(), args.toArray(new String[0])))
                .hasMessageContaining("'flink.s3.secret-key' is a setting of the cluster's own")
                .hasMessageContaining("Set s3.secret-key in the cluster's configuration")
                // what the client printed (the harness's message starts with the command line, secret included)
                .satisfies(e -> assertThat(e.getMessage().substring(e.getMessage().indexOf("failed (exit"))).doesNotContain("not-the-clusters"));
    }

    @Test
    @Order(5)
    void noSecretReachesAnyLogOrOutputOfTheClusterOrItsClients() throws Exception {
        List<String> leaks = new ArrayList<>();
        try (var files = java.nio.file.Files.list(cluster.logDir())) {
            for (java.nio.file.Path file : files.toList()) {
                String text = java.nio.file.Files.readString(file, java.nio.charset.StandardCharsets.ISO_8859_1);
                for (String secret : List.of(EmbeddedS3.SECRET_KEY, "not-the-clusters")) {
                    if (text.contains(secret)) {
                        leaks.add(file.getFileName() + " holds " + secret);
                    }
                }
            }
        }
        assertThat(leaks).isEmpty();
    }

    /** A new topic of two partitions, named after {@code name}. */
    private static String newTopic(String name) throws Exception {
        String topic = SharedStack.uniqueName(name);
        SharedStack.get().kafka().createTopic(topic, 2);
        return topic;
    }

    private static String archiveOf(String topic) {
        return "s3://" + SharedStack.BUCKET + "/" + topic;
    }

    /** What the cluster's Prometheus reporters (a free port range, in place of conf/flink/config.yaml's) export right now. */
    private static String prometheusMetrics() {
        StringBuilder all = new StringBuilder();
        for (int port : reporterPorts()) {
            all.append(prometheusMetrics(port));
        }
        return all.toString();
    }

    /**
     * The ports the cluster's Prometheus reporters took in their range, as each process logged it. Not a probe of the
     * range: the JobManager's metric query service (Pekko) may take a port in it too, and logs a warning for every
     * connection that does not speak Pekko.
     */
    private static Set<Integer> reporterPorts() {
        Set<Integer> ports = new TreeSet<>();
        for (String line : logLines()) {
            java.util.regex.Matcher started = REPORTER_STARTED.matcher(line);
            if (started.find()) {
                ports.add(Integer.parseInt(started.group(1)));
            }
        }
        return ports;
    }

    /** What a reporter on {@code port} exports now; empty when none listens there. */
    private static String prometheusMetrics(int port) {
        java.net.http.HttpClient http = java.net.http.HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        try {
            return http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port + "/metrics"))
                            .timeout(Duration.ofSeconds(5)).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString()).body();
        } catch (Exception e) {
            return "";
        }
    }

    /** The dashboard's queries (its {@code $job} variable: any job) that Prometheus answers with no series now. */
    private static List<String> emptyDashboardQueries() throws Exception {
        List<String> empty = new ArrayList<>();
        for (String query : MonitoringQueries.dashboard()) {
            java.util.regex.Matcher labelValues = LABEL_VALUES.matcher(query);
            boolean answered = labelValues.matches()
                    ? !server.labelValues(labelValues.group(2), labelValues.group(1)).isEmpty()
                    : !server.query(query.replace("$job", ".+")).isEmpty();
            if (!answered) {
                empty.add(query);
            }
        }
        return empty;
    }

    private static final java.util.regex.Pattern REPORTER_STARTED = java.util.regex.Pattern.compile(
            "Started PrometheusReporter HTTP server on port (\\d+)");
    private static final java.util.regex.Pattern LABEL_VALUES = java.util.regex.Pattern.compile("label_values\\((\\w+), (\\w+)\\)");

    private static void awaitFiring(String alert, Map<String, String> labels) throws Exception {
        Await.until(alert + " firing in Prometheus for " + labels, Duration.ofMinutes(2), () -> server.firing(alert, labels),
                () -> "alerts: " + server.alerts() + "; targets: " + server.targets());
    }

    /** The {@code job_name} label of the job's metrics in Prometheus (the reporter rewrites some characters). */
    private static String jobName(String jobId) throws Exception {
        String ofJob = "flink_jobmanager_job_numRestarts{job_id=\"" + jobId + "\"}";
        Await.until("the metrics of job " + jobId + " in Prometheus", Duration.ofMinutes(1),
                () -> !server.labelValues("job_name", ofJob).isEmpty());
        return server.labelValues("job_name", ofJob).get(0);
    }

    /** Every line of the cluster's logs and outputs (processes and client calls) at WARN or ERROR, with its file. */
    private static List<String> warningsAndErrors() {
        return logLines().stream().filter(line -> line.matches(".*\\b(WARN|ERROR)\\b.*")).toList();
    }

    /** Every line of the cluster's log files (its processes' and its client's), each after its file's name: {@code jobmanager.log: …}. */
    private static List<String> logLines() {
        List<String> lines = new ArrayList<>();
        try (var files = java.nio.file.Files.list(cluster.logDir())) {
            for (Path file : files.sorted().toList()) {
                for (String line : java.nio.file.Files.readAllLines(file, java.nio.charset.StandardCharsets.ISO_8859_1)) {
                    lines.add(file.getFileName() + ": " + line);
                }
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return lines;
    }

    /** Waits for the producer and for the archive to catch up, then checks it record by record. */
    private static void assertEverythingArchivedOnce(ContinuousProducer producer, String topic, String root, ArchiveCounter counter)
            throws Exception {
        producer.awaitDone(Duration.ofMinutes(3).toMillis());
        List<ArchiveRecord> inKafka = KafkaTopicReader.readAll(SharedStack.get().kafka().bootstrapServers(), topic);
        Await.until("all records of " + topic + " archived", Duration.ofMinutes(3), () -> counter.count() >= inKafka.size());
        ArchiveAssertions.assertExactlyOnce(root, FORMATS, inKafka);
    }

    private static String[] args(String topics, String root, int parallelism) {
        SharedStack stack = SharedStack.get();
        return new String[] {
            "run",
            "-D", "kafka.bootstrap.servers=" + stack.kafka().bootstrapServers(),
            "-D", "kafka.topics=" + topics,
            "-D", "kafka.group.id=" + root.replaceAll("[^a-z0-9-]", "-"),
            "-D", "sink.path=" + root,
            "-D", "checkpoint.interval=" + CHECKPOINT_INTERVAL.toSeconds() + " s",
            "-D", "parallelism=" + parallelism,
            "-D", "restart.strategy=fixed-delay",
            "-D", "restart.attempts=20",
            "-D", "restart.delay=1 s",
            "-D", "preflight.timeout=20 s",
            "-D", "fencing.lease-timeout=5 s"
        };
    }

    /** The topic's Iceberg table, read by Iceberg's reader and DuckDB, against what Kafka holds. */
    private static void assertTableEqualsTopic(String topic, String root, String catalog) throws Exception {
        ArchiverConfig config = ArchiverConfig.of(Map.of("kafka.bootstrap.servers", SharedStack.get().kafka().bootstrapServers(),
                "kafka.topics", topic, "sink.path", root, "table.format", "iceberg", "table.catalog.uri", catalog));
        List<ArchiveRecord> inKafka = KafkaTopicReader.readAll(SharedStack.get().kafka().bootstrapServers(), topic);
        Await.until("the table of " + topic + " holds every record", Duration.ofMinutes(2),
                () -> TableContents.records(config, topic) >= inKafka.size());
        TableContents.assertEqualsTruth(config, topic, inKafka);
    }

    /** {@code args} with the topics' Iceberg tables in the SQLite catalog {@code catalog} (the cluster runs on this host). */
    private static String[] withTable(String[] args, String catalog) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("-D", "table.format=iceberg", "-D", "table.catalog.uri=" + catalog));
        return all.toArray(new String[0]);
    }

    private static String[] withLayout(String[] args, SinkLayout layout) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("-D", "sink.layout=" + layout.configName()));
        return all.toArray(new String[0]);
    }

    private static final String LONG_LEASE = "90 s";

    private static String[] withLongLease(String[] args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("-D", "fencing.lease-timeout=" + LONG_LEASE));
        return all.toArray(new String[0]);
    }

    private static Path jar() {
        return Path.of(System.getProperty("archiver.shaded.jar"));
    }
}
