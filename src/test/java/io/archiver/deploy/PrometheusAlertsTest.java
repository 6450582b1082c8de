package io.archiver.deploy;

import io.archiver.testutils.MonitoringQueries;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The alert rules in Prometheus' own rule engine ({@code promtool}, from Debian's {@code prometheus} package, which
 * {@code .ci/run} installs): they load, and their unit tests ({@code conf/prometheus-alerts.test.yml}) hold: each
 * alert fires for its fault and stays quiet through a normal start, an upgrade and a single declined checkpoint.
 */
class PrometheusAlertsTest {

    private static final Path TESTS = Path.of("conf", "prometheus-alerts.test.yml");

    @Test
    void theAlertRulesLoadInPrometheus() throws Exception {
        Result check = promtool("check", "rules", MonitoringQueries.ALERT_RULES.toString());
        assertThat(check.code()).as(check.out()).isZero();
        assertThat(check.out()).contains("SUCCESS");
    }

    @Test
    void everyAlertFiresForItsFaultAndOnlyThen() throws Exception {
        Result test = promtool("test", "rules", TESTS.toString());
        assertThat(test.code()).as(test.out()).isZero();
        assertThat(test.out()).contains("SUCCESS");
    }

    @Test
    void everyAlertHasAUnitTestThatExpectsItToFire() throws Exception {
        String tests = Files.readString(TESTS);
        for (String alert : MonitoringQueries.alertRules().keySet()) {
            assertThat(tests).as("a test of %s that expects it to fire", alert)
                    .containsPattern("alertname: " + alert + "\\s+exp_alerts:\\s+- exp_labels");
        }
    }

    private record Result(int code, String out) {}

    private static Result promtool(String... args) throws IOException, InterruptedException {
        Path promtool = Path.of("/usr/bin/promtool");
        assertThat(promtool).as("promtool is not installed: apt-get install prometheus (as .ci/run does)").isExecutable();
        List<String> command = new ArrayList<>(List.of(promtool.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("promtool ends").isTrue();
        return new Result(p.exitValue(), out);
    }
}
