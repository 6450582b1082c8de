package io.archiver.metrics;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** The metric catalog is what docs/design.md lists, and what the dashboard and the alert rules query. */
class ArchiverMetricTest {

    private static final Pattern QUERIED = Pattern.compile("flink_taskmanager_job_task_operator_(topic_partition_)?([A-Za-z]+)");
    private static final Path DASHBOARD = Path.of("conf", "grafana", "dashboards", "kafka-s3-archiver.json");
    private static final Path ALERTS = Path.of("conf", "prometheus-alerts.yml");

    @Test
    void designDocCarriesTheGeneratedMetricTable() throws IOException {
        assertThat(Files.readString(Path.of("docs", "design.md")))
                .as("docs/design.md's metric table is stale: replace it with ArchiverMetric.markdownTable()")
                .contains(ArchiverMetric.markdownTable());
    }

    @Test
    void theDashboardAndTheAlertRulesQueryCatalogMetricsOnlyAndEveryOneOfThem() throws IOException {
        Set<String> unknown = new TreeSet<>();
        Set<String> queried = new TreeSet<>();
        for (Path file : new Path[] {DASHBOARD, ALERTS}) {
            Matcher m = QUERIED.matcher(Files.readString(file));
            while (m.find()) {
                boolean perPartition = m.group(1) != null;
                ArchiverMetric metric = Arrays.stream(ArchiverMetric.values()).filter(x -> x.metricName().equals(m.group(2))).findFirst()
                        .orElse(null);
                if (metric == null || perPartition != (metric.where() == ArchiverMetric.Where.COMMITTER_PARTITION)) {
                    unknown.add(file + ": " + m.group());
                } else {
                    queried.add(metric.metricName());
                }
            }
        }
        assertThat(unknown).as("queries of metrics the job does not register (under that name and group)").isEmpty();
        assertThat(queried).as("every metric is on the dashboard or in an alert rule")
                .isEqualTo(Arrays.stream(ArchiverMetric.values()).map(ArchiverMetric::metricName).collect(Collectors.toCollection(TreeSet::new)));
    }
}
