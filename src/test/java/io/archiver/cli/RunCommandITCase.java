package io.archiver.cli;

import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TestRecords;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code java … ArchiverCli run} as an operator starts it, in its own JVM without a logging configuration: what
 * it prints (no warning or error in a normal run), and that the next run on the same archive starts at once
 * because a finished run gives its lease up.
 */
@ExtendWith(SharedStack.class)
class RunCommandITCase {

    private static final Duration LEASE_TIMEOUT = Duration.ofSeconds(60);

    @TempDir Path dir;

    @Test
    void runPrintsTheJobItsCommitsAndItsEndAndTheNextRunStartsWithoutWaiting() throws Exception {
        String topic = SharedStack.uniqueName("run-cli");
        SharedStack.get().kafka().createTopic(topic, 2);
        TestRecords.produce(SharedStack.get().kafka().bootstrapServers(), topic, 2, 0, 500);

        Run first = run(topic, List.of());
        assertThat(first.code).as(first.out).isZero();
        assertThat(first.out)
                .contains("INFO  RunCommand - Starting kafka-s3-archiver")
                .containsPattern("Job 'kafka-s3-archiver' \\([0-9a-f]{32}\\) runs in this JVM, writing to s3://")
                .contains("INFO  ArchiveCommitter - Committed checkpoint")
                .containsPattern("Job [0-9a-f]{32} finished in \\d+ s\\.")
                .doesNotContain("AWS SDK for Java 1.x")
                .as("a normal run logs no warning or error (Log4j's own status messages included)")
                .doesNotContainPattern("\\b(WARN|ERROR)\\b")
                .doesNotContain(SharedStack.get().s3().flinkSettings().get("s3.secret-key"));

        Run second = run(topic, List.of());
        assertThat(second.code).as(second.out).isZero();
        assertThat(second.out).doesNotContain("waiting up to").contains("2 partitions resume from the archive");
        assertThat(second.seconds).as("a run after a finished one takes the lease at once").isLessThan(LEASE_TIMEOUT.toSeconds() / 2);
    }

    @Test
    void aLoggingConfigurationOfTheUsersOwnReplacesTheDefault() throws Exception {
        String topic = SharedStack.uniqueName("run-cli-log");
        SharedStack.get().kafka().createTopic(topic, 1);
        TestRecords.produce(SharedStack.get().kafka().bootstrapServers(), topic, 1, 0, 100);
        Path quiet = dir.resolve("quiet.properties");
        Files.writeString(quiet, "rootLogger.level = OFF\n");

        Run run = run(topic, List.of("-Dlog4j2.configurationFile=" + quiet.toUri()));

        assertThat(run.code).as(run.out).isZero();
        assertThat(run.out).doesNotContain("INFO").contains("runs in this JVM").contains("finished in");
    }

    private record Run(int code, String out, long seconds) {}

    /** {@code ArchiverCli run} of {@code topic} in batch mode in a JVM of its own, with {@code jvmFlags}. */
    private Run run(String topic, List<String> jvmFlags) throws Exception {
        SharedStack stack = SharedStack.get();
        Map<String, String> settings = stack.jobSettings(topic, topic);
        settings.put("mode", "batch");
        settings.put("fencing.lease-timeout", LEASE_TIMEOUT.toSeconds() + " s");
        settings.put("preflight.timeout", "20 s");
        settings.put("checkpoint.dir", dir.resolve("checkpoints").toUri().toString());
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> a.startsWith("--add-opens"))
                .toList());
        command.addAll(jvmFlags);
        command.addAll(List.of("-Xmx1g", "-cp", System.getProperty("java.class.path"), ArchiverCli.class.getName(), "run"));
        settings.forEach((k, v) -> command.add("-D" + k + "=" + v));
        stack.s3().flinkSettings().forEach((k, v) -> command.add("-Dflink." + k + "=" + v));
        Path output = Files.createTempFile(dir, "run", ".out");
        long start = System.nanoTime();
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        boolean exited = process.waitFor(3, TimeUnit.MINUTES);
        if (!exited) {
            process.destroyForcibly();
        }
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
        String out = Files.readString(output, StandardCharsets.UTF_8);
        assertThat(exited).as("run exits by itself; output:%n%s", out).isTrue();
        return new Run(process.exitValue(), out, seconds);
    }
}
