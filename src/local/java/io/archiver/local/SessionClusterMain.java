package io.archiver.local;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The commands of bin/session-cluster.sh that start and stop processes, each recording the process ids it
 * starts in {@code <work-dir>/pids} (the JobManager first) so that {@code stop} stops every one of them:
 * <ul>
 *   <li>{@code start <work-dir>}: a {@link SessionCluster} (JobManager + one TaskManager) in the background,
 *       returning once the TaskManager is registered;
 *   <li>{@code taskmanager-start <work-dir>}: one more TaskManager (a replacement for one that died, or
 *       another slot holder), returning once it is registered;
 *   <li>{@code taskmanager-stop <work-dir> [pid]}: stops that TaskManager, by default the last one started.
 * </ul>
 * Settings come from {@code conf/flink/config.yaml} plus the environment: {@code REST_PORT} (a free port
 * unless set), {@code S3_ENDPOINT} (http://127.0.0.1:9000, the local command's server), {@code S3_ACCESS_KEY},
 * {@code S3_SECRET_KEY}, {@code CHECKPOINT_DIR} (s3://archive/_flink/checkpoints).
 */
public final class SessionClusterMain {

    private static final Path LIB = Path.of("target", "flink", "lib");
    private static final Path PLUGINS = Path.of("target", "plugins");

    private SessionClusterMain() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            usage();
        }
        Path work = Path.of(args[1]).toAbsolutePath();
        switch (args[0]) {
            case "start" -> start(work);
            case "taskmanager-start" -> startTaskManager(work);
            case "taskmanager-stop" -> stopTaskManager(work, args.length > 2 ? Long.parseLong(args[2]) : -1);
            default -> usage();
        }
        System.exit(0);
    }

    private static void usage() {
        System.err.println("usage: SessionClusterMain start|taskmanager-start|taskmanager-stop <work-dir> [pid]");
        System.exit(2);
    }

    private static void start(Path work) throws Exception {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("s3.endpoint", env("S3_ENDPOINT", "http://127.0.0.1:9000"));
        settings.put("s3.access-key", env("S3_ACCESS_KEY", EmbeddedS3.ACCESS_KEY));
        settings.put("s3.secret-key", env("S3_SECRET_KEY", EmbeddedS3.SECRET_KEY));
        settings.put("s3.connection.ssl.enabled", "false");
        settings.put("execution.checkpointing.dir", env("CHECKPOINT_DIR", "s3://archive/_flink/checkpoints"));
        int restPort = Integer.parseInt(env("REST_PORT", "0"));
        SessionCluster cluster = new SessionCluster(LIB, Path.of("conf", "flink"), PLUGINS, work, restPort, settings);
        cluster.start(1);
        Files.writeString(work.resolve("pids"), cluster.pids());
        System.out.println("Flink session cluster up: web UI and REST at " + cluster.restUrl()
                + "; FLINK_CONF_DIR=" + cluster.confDir() + "; logs in " + work.resolve("log"));
    }

    private static void startTaskManager(Path work) throws Exception {
        SessionCluster cluster = SessionCluster.reopen(LIB, PLUGINS, work);
        Set<String> before = cluster.taskManagerIds();
        Process tm = cluster.startTaskManager();
        Set<String> now = cluster.awaitNewTaskManager(before, Duration.ofMinutes(2));
        Files.writeString(work.resolve("pids"), tm.pid() + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        System.out.println("TaskManager started (pid " + tm.pid() + "); " + now.size() + " TaskManagers registered.");
    }

    private static void stopTaskManager(Path work, long pid) throws Exception {
        Path pids = work.resolve("pids");
        List<String> lines = new ArrayList<>(Files.exists(pids) ? Files.readAllLines(pids) : List.of());
        lines.removeIf(String::isBlank);
        if (lines.size() < 2) {
            System.err.println("No TaskManager started from " + work + ".");
            System.exit(1);
        }
        long victim = pid > 0 ? pid : Long.parseLong(lines.get(lines.size() - 1).trim());
        if (!lines.subList(1, lines.size()).contains(Long.toString(victim))) {
            System.err.println("Process " + victim + " is not a TaskManager started from " + work + ".");
            System.exit(1);
        }
        ProcessHandle.of(victim).ifPresent(p -> {
            p.destroy();
            p.onExit().orTimeout(30, TimeUnit.SECONDS).exceptionally(t -> {
                p.destroyForcibly();
                return p;
            }).join();
        });
        lines.remove(Long.toString(victim));
        Files.writeString(pids, String.join("\n", lines) + "\n");
        System.out.println("TaskManager " + victim + " stopped.");
    }

    private static String env(String name, String fallback) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? fallback : v;
    }
}
