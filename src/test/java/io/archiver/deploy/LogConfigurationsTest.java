package io.archiver.deploy;

import org.apache.flink.runtime.checkpoint.CheckpointException;
import org.apache.flink.runtime.checkpoint.CheckpointFailureReason;
import org.apache.logging.log4j.Logger;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The filters of Flink's known false warnings ({@code conf/flink/log4j-filters.properties}) drop exactly those
 * messages, and every logging configuration the project ships carries them: the session cluster's, the command
 * line's, docker compose's Flink processes, the image and the Kubernetes deployments.
 */
class LogConfigurationsTest {

    private static final Path FILTERS = Path.of("conf", "flink", "log4j-filters.properties");
    private static final String COLLISION =
            "Name collision: Group already contains a Metric with the name 'pendingCommittables'. Metric will not be reported.[127.0.0.1, taskmanager, 1f2e, kafka-s3-archiver, Archive sink: Committer, 0]";
    private static final String TRUNCATED = "The operator name Source: Kafka source -> Skip archived offsets -> Record validator -> "
            + "Archive sink: Writer -> Archive sink: Checkpoint ids -> Archive sink: Committer exceeded the 80 characters length limit and was truncated.";

    private static final String PENDING_AFTER_UPLOAD = "Closing output stream statistics while data is still marked as pending upload in "
            + "OutputStreamStatistics{counters=((action_executor_acquired.failures=0) (multipart_upload_completed=0) "
            + "(object_multipart_aborted.failures=0) (stream_write_exceptions=0) (object_multipart_aborted=0) (op_hsync=0) "
            + "(stream_write_total_time=0) (stream_write_block_uploads=1) (op_hflush=0) (action_executor_acquired=0) (op_abort=0) "
            + "(stream_write_total_data=0) (stream_write_queue_duration=0) (op_abort.failures=0) "
            + "(stream_write_exceptions_completing_upload=0) (multipart_upload_completed.failures=0) (stream_write_bytes=8248));";

    /** Per filtered logger: a message its filter drops (as Flink logs it), and another warning of it that must stay. */
    private static final List<List<String>> DROPPED_AND_KEPT = List.of(
            List.of("org.apache.flink.metrics.MetricGroup", COLLISION,
                    "Name collision: Group already contains a Metric with the name 'archivedFiles'. Metric will not be reported."),
            List.of("org.apache.flink.runtime.metrics.util.MetricUtils", TRUNCATED,
                    "The operator name Window(TumblingEventTimeWindows(60000), EventTimeTrigger, AggregateFunction) exceeded the 80 characters length limit and was truncated."),
            List.of("org.apache.hadoop.util.NativeCodeLoader",
                    "Unable to load native-hadoop library for your platform... using builtin-java classes where applicable",
                    "Loaded the native-hadoop library but it is broken"),
            List.of("org.apache.hadoop.metrics2.impl.MetricsConfig",
                    "Cannot locate configuration: tried hadoop-metrics2-s3a-file-system.properties,hadoop-metrics2.properties",
                    "Metrics sink s3a failed"),
            List.of("com.amazonaws.services.s3.internal.Mimetypes", "Unable to find 'mime.types' file in classpath",
                    "Unable to read mime.types"),
            List.of("org.apache.hadoop.fs.s3a.S3AInstrumentation", PENDING_AFTER_UPLOAD,
                    PENDING_AFTER_UPLOAD.replace("(stream_write_exceptions=0)", "(stream_write_exceptions=1)")),
            List.of("org.apache.flink.client.cli.CliFrontend", "Could not load CLI class org.apache.flink.yarn.cli.FlinkYarnSessionCli.",
                    "Could not load CLI class com.example.OurCli."),
            List.of("org.apache.flink.runtime.jobmaster.JobMaster", "Skip setting up checkpointing for a job with dynamic graph.",
                    "Error while processing checkpoint acknowledgement message"),
            List.of("org.apache.flink.runtime.rpc.RpcEndpoint$MainThreadExecutor",
                    "The scheduled executor service is shutdown and ignores the command org.apache.flink.runtime.heartbeat.DefaultHeartbeatMonitor@4543bddd",
                    "Could not run the command"),
            List.of("org.apache.parquet.column.values.bloomfilter.AdaptiveBlockSplitBloomFilter",
                    "The number of distinct values in [key] is approximately 1000, the optimal bloom filter can accept 1500 distinct values, byte size is 2048.",
                    "the read bloom filter size is wrong, size is -1"));

    @Test
    void theFiltersDropFlinksFalseWarningsAndKeepEveryOtherWarningOfTheirLoggers(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("cluster.log");
        Path config = dir.resolve("log4j.properties");
        Files.writeString(config, String.join("\n",
                "appender.file.type = File",
                "appender.file.name = file",
                "appender.file.fileName = " + log,
                "appender.file.layout.type = PatternLayout",
                "appender.file.layout.pattern = %-5p %c - %m%n",
                "rootLogger.level = INFO",
                "rootLogger.appenderRef.file.ref = file",
                Files.readString(FILTERS)));
        LoggerContext context = Configurator.initialize("filters", config.toUri().toString());
        List<String> kept = new java.util.ArrayList<>();
        try {
            for (List<String> logger : DROPPED_AND_KEPT) {
                Logger l = context.getLogger(logger.get(0));
                l.warn(logger.get(1));
                l.warn(logger.get(2));
                kept.add("WARN  " + logger.get(0) + " - " + logger.get(2));
            }
        } finally {
            Configurator.shutdown(context);
        }
        assertThat(Files.readAllLines(log)).containsExactlyElementsOf(kept);
        long filtered = Files.readAllLines(FILTERS).stream().filter(l -> l.matches("logger\\.\\w+\\.name = .*")).count();
        assertThat(DROPPED_AND_KEPT).as("a case for every filtered logger").hasSize((int) filtered);
    }

    @Test
    void theCommandLineDropsOnlyTheCheckpointTriggerCutShortByAJobsEnd(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("local.log");
        Path config = dir.resolve("log4j.properties");
        List<String> filter;
        try (InputStream cli = LogConfigurationsTest.class.getResourceAsStream("/archiver-log4j2.properties")) {
            filter = new String(cli.readAllBytes(), StandardCharsets.UTF_8).lines().filter(l -> l.startsWith("logger.checkpointfailures.")).toList();
        }
        assertThat(filter).as("the command line's filter of checkpoint failures").hasSize(2);
        Files.writeString(config, String.join("\n",
                "appender.file.type = File",
                "appender.file.name = file",
                "appender.file.fileName = " + log,
                "appender.file.layout.type = PatternLayout",
                "appender.file.layout.pattern = %m%n",
                "appender.file.layout.alwaysWriteExceptions = false",
                "rootLogger.level = INFO",
                "rootLogger.appenderRef.file.ref = file",
                String.join("\n", filter)));
        LoggerContext context = Configurator.initialize("cli", config.toUri().toString());
        try {
            Logger failures = context.getLogger("org.apache.flink.runtime.checkpoint.CheckpointFailureManager");
            String message = "Failed to trigger or complete checkpoint {} for job 3d2358beca3cc74f99ade9e584d52c76. (0 consecutive failed attempts so far)";
            failures.warn(message, "UNKNOWN_CHECKPOINT_ID", new CheckpointException(CheckpointFailureReason.PERIODIC_SCHEDULER_SHUTDOWN));
            failures.warn(message, 3, new CheckpointException(CheckpointFailureReason.CHECKPOINT_COORDINATOR_SUSPEND));
            failures.warn(message, "UNKNOWN_CHECKPOINT_ID", new CheckpointException(CheckpointFailureReason.IO_EXCEPTION));
            failures.warn(message, 7, new CheckpointException(CheckpointFailureReason.CHECKPOINT_EXPIRED));
        } finally {
            Configurator.shutdown(context);
        }
        assertThat(Files.readAllLines(log)).containsExactly(
                "Failed to trigger or complete checkpoint UNKNOWN_CHECKPOINT_ID for job 3d2358beca3cc74f99ade9e584d52c76. (0 consecutive failed attempts so far)",
                "Failed to trigger or complete checkpoint 7 for job 3d2358beca3cc74f99ade9e584d52c76. (0 consecutive failed attempts so far)");
    }

    @Test
    void everyShippedLoggingConfigurationCarriesTheFilters() throws Exception {
        List<String> filters = Files.readAllLines(FILTERS).stream().filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
        assertThat(filters).as("filter lines").hasSizeGreaterThanOrEqualTo(10);

        try (InputStream cli = LogConfigurationsTest.class.getResourceAsStream("/archiver-log4j2.properties")) {
            assertThat(new String(cli.readAllBytes(), StandardCharsets.UTF_8).lines().toList())
                    .as("the command line's archiver-log4j2.properties").containsAll(filters);
        }
        for (String file : List.of("flink-deployment.yaml", "flink-session-job.yaml")) {
            for (Object doc : new Load(LoadSettings.builder().build()).loadAllFromString(Files.readString(Path.of("conf", "kubernetes", file)))) {
                Map<?, ?> manifest = (Map<?, ?>) doc;
                if ("FlinkDeployment".equals(manifest.get("kind"))) {
                    Map<?, ?> logging = (Map<?, ?>) ((Map<?, ?>) manifest.get("spec")).get("logConfiguration");
                    assertThat(logging).as("%s: spec.logConfiguration", file).isNotNull();
                    assertThat(String.valueOf(logging.get("log4j-console.properties")).lines().toList())
                            .as("%s: log4j-console.properties", file).containsAll(filters);
                }
            }
        }
        String appended = "cat /opt/archiver/conf/flink/log4j-filters.properties >> /opt/flink/conf/log4j-console.properties";
        String compose = Files.readString(Path.of("docker-compose.yml"));
        for (String process : List.of("jobmanager", "taskmanager")) {
            assertThat(compose).as("compose's %s appends the filters", process).contains(appended + " && exec /docker-entrypoint.sh " + process);
        }
        assertThat(Files.readString(Path.of("conf", "kubernetes", "Dockerfile")))
                .contains("COPY conf/flink/log4j-filters.properties")
                .contains(">> /opt/flink/conf/log4j-console.properties");
    }

    @Test
    void theSessionClusterAppendsTheFiltersToItsLoggingConfiguration(@TempDir Path dir) throws IOException {
        new io.archiver.local.SessionCluster(Path.of("target", "flink", "lib"), Path.of("conf", "flink"), Path.of("target", "plugins"),
                dir, 0, Map.of());
        assertThat(Files.readString(dir.resolve("conf").resolve("log4j.properties")))
                .startsWith(Files.readString(Path.of("conf", "flink", "log4j.properties")))
                .endsWith(Files.readString(FILTERS));
    }
}
