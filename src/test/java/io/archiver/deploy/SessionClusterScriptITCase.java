package io.archiver.deploy;

import io.archiver.testutils.Await;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bin/session-cluster.sh} as an operator uses it: the cluster starts while Flink's default ports are
 * taken, a TaskManager that died is replaced with {@code taskmanager start}, and {@code stop} stops every
 * process the script started, the added TaskManagers included.
 */
class SessionClusterScriptITCase {

    private static final int FLINK_DEFAULT_RPC_PORT = 6123;

    @TempDir Path work;

    @AfterEach
    void stopAnyway() throws Exception {
        script("stop");
    }

    @Test
    void startsOnFreePortsReplacesADeadTaskManagerAndStopsEveryProcessItStarted() throws Exception {
        String started;
        try (ServerSocket taken = takeIfFree(FLINK_DEFAULT_RPC_PORT)) {
            started = script("start");
        }
        Matcher rest = Pattern.compile("REST at (http://127\\.0\\.0\\.1:\\d+)").matcher(started);
        assertThat(rest.find()).as(started).isTrue();
        String url = rest.group(1);
        assertThat(taskManagers(url)).isEqualTo(1);

        List<Long> first = pids();
        ProcessHandle.of(first.get(1)).orElseThrow().destroyForcibly();
        Await.until("the killed TaskManager to be gone", Duration.ofMinutes(1),
                () -> ProcessHandle.of(first.get(1)).map(p -> !p.isAlive()).orElse(true));

        assertThat(script("taskmanager", "start")).contains("TaskManager started");
        assertThat(script("taskmanager", "start")).contains("TaskManager started");
        Await.until("two live TaskManagers registered", Duration.ofMinutes(2), () -> taskManagers(url) >= 2);
        List<Long> all = pids();
        assertThat(all).hasSize(4);

        assertThat(script("taskmanager", "stop")).contains("TaskManager " + all.get(3) + " stopped");
        assertThat(ProcessHandle.of(all.get(3)).map(ProcessHandle::isAlive).orElse(false)).isFalse();

        script("stop");
        for (long pid : all) {
            Await.until("process " + pid + " stopped", Duration.ofSeconds(30),
                    () -> ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true));
        }
    }

    /** Runs the script with {@code args} under this test's work folder and returns what it printed. */
    private String script(String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of("bash", "bin/session-cluster.sh"));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("WORK_DIR", work.toString());
        Process p = builder.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(3, TimeUnit.MINUTES)).as(out).isTrue();
        return out;
    }

    private List<Long> pids() throws IOException {
        return Files.readAllLines(work.resolve("pids")).stream().filter(l -> !l.isBlank()).map(l -> Long.parseLong(l.trim())).toList();
    }

    private static int taskManagers(String url) throws Exception {
        String overview = HttpClient.newHttpClient()
                .send(HttpRequest.newBuilder(URI.create(url + "/overview")).timeout(Duration.ofSeconds(5)).build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        Matcher m = Pattern.compile("\"taskmanagers\"\\s*:\\s*(\\d+)").matcher(overview);
        return m.find() ? Integer.parseInt(m.group(1)) : 0;
    }

    /** Holds {@code port} like another Flink on this machine would; null if something already holds it. */
    private static ServerSocket takeIfFree(int port) {
        try {
            return new ServerSocket(port);
        } catch (IOException alreadyTaken) {
            return null;
        }
    }
}
