package io.archiver.testutils;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The PromQL queries the shipped Grafana dashboard and Prometheus alert rules run, and the metrics they read. */
public final class MonitoringQueries {

    public static final Path DASHBOARD = Path.of("conf", "grafana", "dashboards", "kafka-s3-archiver.json");
    public static final Path ALERT_RULES = Path.of("conf", "prometheus-alerts.yml");

    private static final Pattern METRIC = Pattern.compile("\\bflink_[a-zA-Z0-9_]+");
    /** The checkpoint interval the shipped alert rules' durations and thresholds assume (the default). */
    private static final Duration ASSUMED_CHECKPOINT_INTERVAL = Duration.ofSeconds(30);
    /** A duration of a rule: its {@code for}, a range selector or an offset. */
    private static final Pattern DURATION = Pattern.compile("(for: |\\[|offset )(\\d+[smh])(\\]|\\s|$)", Pattern.MULTILINE);
    /** The seconds without a commit after which ArchiverNoCommit's expression holds. */
    private static final Pattern NO_COMMIT_SECONDS = Pattern.compile("(lastCommitTimestamp\\[\\w+]\\)\\) / 1000 > )(\\d+)");
    /** The milliseconds a job is up before ArchiverCheckpointsFailing counts its failures. */
    private static final Pattern UPTIME_MILLIS = Pattern.compile("(flink_jobmanager_job_uptime > )(\\d+)");

    private MonitoringQueries() {}

    /** Every query of the dashboard's panels and its variables. */
    public static List<String> dashboard() throws IOException {
        JsonNode dashboard = new ObjectMapper().readTree(Files.readString(DASHBOARD));
        List<String> queries = new ArrayList<>();
        dashboard.findValues("expr").forEach(e -> queries.add(e.asText()));
        dashboard.findValues("definition").forEach(e -> queries.add(e.asText()));
        return queries;
    }

    /** Every alert rule, as its name and query. */
    @SuppressWarnings("unchecked")
    public static Map<String, String> alertRules() throws IOException {
        Map<String, Object> file = (Map<String, Object>) new Load(LoadSettings.builder().build()).loadFromString(Files.readString(ALERT_RULES));
        Map<String, String> rules = new java.util.LinkedHashMap<>();
        for (Object group : (List<Object>) file.get("groups")) {
            for (Object rule : (List<Object>) ((Map<String, Object>) group).get("rules")) {
                Map<String, Object> r = (Map<String, Object>) rule;
                rules.put(String.valueOf(r.get("alert")), String.valueOf(r.get("expr")));
            }
        }
        return rules;
    }

    /**
     * The shipped alert rules with every duration (each {@code for}, range and offset), the "no commit" seconds and
     * the job's uptime before checkpoint failures count scaled from the 30 s checkpoint interval they assume to {@code checkpointInterval}, as the rules file
     * tells an operator to scale them: a test's job with 2 s checkpoints sees its alerts 15 times sooner. Nothing
     * else of a rule changes.
     */
    public static String alertRulesScaledTo(Duration checkpointInterval) throws IOException {
        double factor = checkpointInterval.toMillis() / (double) ASSUMED_CHECKPOINT_INTERVAL.toMillis();
        String rules = Files.readString(ALERT_RULES);
        for (Pattern threshold : List.of(NO_COMMIT_SECONDS, UPTIME_MILLIS)) {
            Matcher m = threshold.matcher(rules);
            if (!m.find()) {
                throw new IllegalStateException("No threshold " + threshold + " in " + ALERT_RULES);
            }
            rules = m.replaceAll(found -> found.group(1) + Math.max(1, Math.round(Long.parseLong(found.group(2)) * factor)));
        }
        return DURATION.matcher(rules).replaceAll(m -> {
            long seconds = Math.max(1, Math.round(Duration.parse("PT" + m.group(2).toUpperCase()).toSeconds() * factor));
            return m.group(1) + seconds + "s" + m.group(3);
        });
    }

    /** The metric names the dashboard and the alert rules read. */
    public static Set<String> metricNames() throws IOException {
        Set<String> names = new TreeSet<>();
        List<String> queries = new ArrayList<>(dashboard());
        queries.addAll(alertRules().values());
        for (String query : queries) {
            Matcher m = METRIC.matcher(query);
            while (m.find()) {
                names.add(m.group());
            }
        }
        return names;
    }
}
