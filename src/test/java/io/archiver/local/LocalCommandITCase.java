package io.archiver.local;

import io.archiver.testutils.LongRunning;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The first README command, end to end in its own JVM: the local command starts a real broker, S3 server
 * and local Flink, archives the sample records, prints what it archived and exits (with --once).
 */
@LongRunning(seconds = 130)
class LocalCommandITCase {

    @Test
    void localCommandArchivesEverySampleRecordAndReportsIt() throws Exception {
        Path workDir = Files.createTempDirectory("local-it");
        String printed = runLocal(workDir);
        assertThat(printed)
                .contains("produced 1500 records to topic 'demo' (3 partitions)")
                .contains("Archived 1500 records")
                .contains("demo-0").contains("demo-1").contains("demo-2")
                // what the user needs only: no start-up output of the embedded broker, S3 client or Flink
                .doesNotContain("Bootstrap metadata").doesNotContain("Formatting metadata").doesNotContain("mime.types")
                .doesNotContain("AWS SDK").doesNotContain("WARN").doesNotContain("ERROR").doesNotContain("Exception");
        assertThat(workDir.resolve("s3/archive/demo").toFile()).isDirectory();
        assertThat(new File(workDir.toFile(), "s3/archive/demo/topic=demo")).isDirectory();
    }

    @Test
    void theSecuredLocalStackArchivesOverTlsWithEveryObjectEncryptedAndWritesItsConfiguration() throws Exception {
        Path workDir = Files.createTempDirectory("local-secure-it");
        String printed = runLocal(workDir, "--secure");
        assertThat(printed)
                .contains("Secured: Kafka SASL_SSL (SCRAM-SHA-512")
                .contains("S3 at https://127.0.0.1:")
                .contains("Archived 1500 records")
                .doesNotContain("without:").doesNotContain("WARN").doesNotContain("Exception");
        java.util.regex.Matcher encrypted = java.util.regex.Pattern
                .compile("S3 received (\\d+) requests creating objects, (\\d+) of them with SSE-KMS").matcher(printed);
        assertThat(encrypted.find()).as(printed).isTrue();
        assertThat(Integer.parseInt(encrypted.group(1))).isPositive().isEqualTo(Integer.parseInt(encrypted.group(2)));
        String configuration = Files.readString(workDir.resolve("archiver-secure.yaml"));
        String secrets = Files.readString(workDir.resolve("secrets/kafka.properties"));
        assertThat(configuration).contains("SASL_SSL").contains("${file:").contains("sink.s3.encryption: 'sse-kms'");
        for (String line : secrets.split("\n")) {
            String secret = line.substring(line.indexOf('=') + 1);
            assertThat(configuration).doesNotContain(secret);
            assertThat(printed).doesNotContain(secret);
        }
    }

    @Test
    void theAvroDemoArchivesAnEvolvingTopicThroughARegistryAndQueriesItsTypedColumns() throws Exception {
        Path workDir = Files.createTempDirectory("local-avro-it");
        String printed = runLocal(workDir, "--avro-demo");
        assertThat(printed)
                .contains("Schema Registry at http://127.0.0.1:")
                .contains("produced 1500 Avro records to 'demo'")
                .contains("Archived 1500 records")
                .contains("DuckDB over the archive's typed columns:")
                .contains("value_schema_id")
                .doesNotContain("WARN").doesNotContain("Exception");
        String result = printed.substring(printed.indexOf("DuckDB over the archive's typed columns:"));
        assertThat(result).as("version 2's countries and version 1's records read as version 2").contains("de").contains("unknown").contains("buy");
    }

    @Test
    void theIcebergDemoCompactsTheTableNextToTheRunningJobAndQueriesItsSnapshot() throws Exception {
        Path workDir = Files.createTempDirectory("local-iceberg-it");
        String printed = runLocal(workDir, "--iceberg-demo");
        assertThat(printed)
                .contains("produced 500 records to topic 'demo'")
                .containsPattern("Produced in three rounds: 500 records of yesterday .*, 500 late records of the same hours, 500 of now")
                .containsPattern("`table compact` next to the running job: [1-9]\\d* files of [1-9]\\d* closed hour folders concatenated")
                .contains("compact ")
                .contains("DuckDB over the current snapshot's files:")
                .doesNotContain("WARN").doesNotContain("Exception");
        String query = printed.substring(printed.indexOf("DuckDB over the current snapshot's files:"));
        int total = 0;
        for (int partition = 0; partition < 3; partition++) {
            java.util.regex.Matcher row = java.util.regex.Pattern.compile("(?m)^  " + partition + " +(\\d+) +0 +(\\d+)$").matcher(query);
            assertThat(row.find()).as("partition %d in the query's result:%n%s", partition, query).isTrue();
            assertThat(Integer.parseInt(row.group(1))).as("partition %d: every offset from 0 once", partition)
                    .isEqualTo(Integer.parseInt(row.group(2)) + 1);
            total += Integer.parseInt(row.group(1));
        }
        assertThat(total).as("records read through the snapshot").isEqualTo(1500);
    }

    /** Runs the local command with {@code --once} and small settings in its own JVM; returns what it printed. */
    private static String runLocal(Path workDir, String... extra) throws Exception {
        Path output = workDir.resolve("output.txt");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> a.startsWith("--add-opens"))
                .toList());
        command.addAll(List.of(
                "-Xmx1g",
                // a JVM that starts a whole stack for one short run: C2's compiles would cost more CPU than they save
                // (the class took 67-69 s with C1 only, 74-130 s without, beside other classes)
                "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"),
                LocalCommand.class.getName(), "--once",
                "--records", "1500", "--partitions", "3",
                "--s3-port", "0", "--ui-port", "0",
                "--work-dir", workDir.toString(), "--timeout", "PT2M"));
        command.addAll(List.of(extra));
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
        boolean exited = process.waitFor(4, TimeUnit.MINUTES);
        if (!exited) {
            process.destroyForcibly();
        }
        String printed = Files.readString(output, StandardCharsets.UTF_8);
        assertThat(exited).as("local --once exits by itself; output:%n%s", printed).isTrue();
        assertThat(process.exitValue()).as("exit code; output:%n%s", printed).isZero();
        return printed;
    }
}
