package io.archiver.local;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code start <work-dir>}: starts a {@link SessionCluster} (JobManager + one TaskManager) in the
 * background, writes their process ids to {@code <work-dir>/pids} and returns once the TaskManager is
 * registered. Settings come from {@code conf/flink/config.yaml} plus the environment: {@code REST_PORT}
 * (8081), {@code S3_ENDPOINT} (http://127.0.0.1:9000, the local command's server), {@code S3_ACCESS_KEY},
 * {@code S3_SECRET_KEY}, {@code CHECKPOINT_DIR} (s3://archive/_flink/checkpoints). Used by
 * bin/session-cluster.sh.
 */
public final class SessionClusterMain {

    private SessionClusterMain() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 2 || !args[0].equals("start")) {
            System.err.println("usage: SessionClusterMain start <work-dir>");
            System.exit(2);
        }
        Path work = Path.of(args[1]).toAbsolutePath();
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("s3.endpoint", env("S3_ENDPOINT", "http://127.0.0.1:9000"));
        settings.put("s3.access-key", env("S3_ACCESS_KEY", EmbeddedS3.ACCESS_KEY));
        settings.put("s3.secret-key", env("S3_SECRET_KEY", EmbeddedS3.SECRET_KEY));
        settings.put("s3.connection.ssl.enabled", "false");
        settings.put("execution.checkpointing.dir", env("CHECKPOINT_DIR", "s3://archive/_flink/checkpoints"));
        int restPort = Integer.parseInt(env("REST_PORT", "8081"));
        SessionCluster cluster = new SessionCluster(Path.of("target", "flink", "lib"), Path.of("conf", "flink"),
                Path.of("target", "plugins"), work, restPort, settings);
        cluster.start(1);
        Files.writeString(work.resolve("pids"), cluster.pids());
        System.out.println("Flink session cluster up: web UI and REST at " + cluster.restUrl()
                + "; FLINK_CONF_DIR=" + cluster.confDir() + "; logs in " + work.resolve("log"));
        System.exit(0);
    }

    private static String env(String name, String fallback) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? fallback : v;
    }
}
