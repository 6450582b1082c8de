package io.archiver.testutils;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A real Prometheus server (Debian's {@code /usr/bin/prometheus}, which {@code .ci/run} installs) that scrapes
 * the given targets every second and evaluates the given alert rules every second, with its own port and an
 * empty database. Asked through its HTTP API as Grafana and Alertmanager ask it.
 */
public final class PrometheusServer implements AutoCloseable {

    public static final Path BINARY = Path.of("/usr/bin/prometheus");

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Process process;
    private final Path dir;
    private final URI base;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private PrometheusServer(Process process, Path dir, int port) {
        this.process = process;
        this.dir = dir;
        this.base = URI.create("http://127.0.0.1:" + port);
    }

    /** Starts Prometheus scraping {@code targets} ({@code host:port}) as job {@code flink}, with {@code rules} (YAML text). */
    public static PrometheusServer start(List<String> targets, String rules) throws Exception {
        if (!Files.isExecutable(BINARY)) {
            throw new IllegalStateException(BINARY + " is not installed: apt-get install prometheus (as .ci/run does)");
        }
        Path dir = Files.createTempDirectory("prometheus");
        Files.writeString(dir.resolve("alerts.yml"), rules);
        Files.writeString(dir.resolve("prometheus.yml"), String.join("\n",
                "global:",
                "  scrape_interval: 1s",
                "  scrape_timeout: 1s",
                "  evaluation_interval: 1s",
                "rule_files:",
                "  - " + dir.resolve("alerts.yml"),
                "scrape_configs:",
                "  - job_name: flink",
                "    static_configs:",
                "      - targets: [" + targets.stream().map(t -> "\"" + t + "\"").collect(Collectors.joining(", ")) + "]",
                ""));
        int port = SessionClusters.freePort();
        Process process = new ProcessBuilder(BINARY.toString(),
                "--config.file=" + dir.resolve("prometheus.yml"),
                "--storage.tsdb.path=" + dir.resolve("data"),
                "--web.listen-address=127.0.0.1:" + port,
                "--log.level=warn")
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("prometheus.log").toFile())
                .start();
        PrometheusServer server = new PrometheusServer(process, dir, port);
        Await.until("Prometheus ready on port " + port, Duration.ofSeconds(30), server::ready, server::log);
        return server;
    }

    private boolean ready() {
        if (!process.isAlive()) {
            throw new IllegalStateException("Prometheus exited: " + log());
        }
        try {
            return get("/-/ready").statusCode() == 200;
        } catch (IOException e) {
            return false;
        }
    }

    /** The series an instant query returns now, each as its labels (with {@code value}). */
    public List<Map<String, String>> query(String promQl) throws IOException {
        JsonNode answer = api("/api/v1/query?query=" + URLEncoder.encode(promQl, StandardCharsets.UTF_8));
        List<Map<String, String>> series = new ArrayList<>();
        for (JsonNode result : answer.path("data").path("result")) {
            Map<String, String> labels = new TreeMap<>();
            result.path("metric").fields().forEachRemaining(e -> labels.put(e.getKey(), e.getValue().asText()));
            labels.put("value", result.path("value").path(1).asText());
            series.add(labels);
        }
        return series;
    }

    /** The values of {@code label} over the series of {@code metric}, as Grafana's {@code label_values()} asks. */
    public List<String> labelValues(String label, String metric) throws IOException {
        JsonNode answer = api("/api/v1/label/" + label + "/values?match[]=" + URLEncoder.encode(metric, StandardCharsets.UTF_8));
        List<String> values = new ArrayList<>();
        answer.path("data").forEach(v -> values.add(v.asText()));
        return values;
    }

    /** The active alerts: pending (expression true, its {@code for} not yet over) and firing, with their labels. */
    public List<Alert> alerts() throws IOException {
        List<Alert> alerts = new ArrayList<>();
        for (JsonNode alert : api("/api/v1/alerts").path("data").path("alerts")) {
            Map<String, String> labels = new TreeMap<>();
            alert.path("labels").fields().forEachRemaining(e -> labels.put(e.getKey(), e.getValue().asText()));
            alerts.add(new Alert(labels.get("alertname"), alert.path("state").asText(), labels));
        }
        return alerts;
    }

    /** True while an alert named {@code name} fires and all of {@code labels} are among its labels. */
    public boolean firing(String name, Map<String, String> labels) throws IOException {
        return alerts().stream().anyMatch(a -> a.name().equals(name) && a.state().equals("firing")
                && a.labels().entrySet().containsAll(labels.entrySet()));
    }

    /** The scrape targets, each as its URL and health ({@code up}, {@code down}, {@code unknown}). */
    public Map<String, String> targets() throws IOException {
        Map<String, String> targets = new TreeMap<>();
        for (JsonNode target : api("/api/v1/targets").path("data").path("activeTargets")) {
            targets.put(target.path("scrapeUrl").asText(), target.path("health").asText());
        }
        return targets;
    }

    public record Alert(String name, String state, Map<String, String> labels) {}

    private JsonNode api(String path) throws IOException {
        HttpResponse<String> response = get(path);
        if (response.statusCode() != 200) {
            throw new IOException("Prometheus answered " + response.statusCode() + " to " + path + ": " + response.body());
        }
        return JSON.readTree(response.body());
    }

    private HttpResponse<String> get(String path) throws IOException {
        try {
            return http.send(HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    /** What Prometheus logged (warnings and errors). */
    public String log() {
        try {
            return Files.readString(dir.resolve("prometheus.log"));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
