package io.archiver.testutils;

import io.archiver.local.EmbeddedS3;
import io.archiver.local.SessionCluster;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** Real session clusters (separate JVMs, one TaskManager) on the shared stack's S3 server, for the deploy tests. */
public final class SessionClusters {

    private SessionClusters() {}

    /**
     * A started cluster whose checkpoints go under {@code s3://<bucket>/<name>/checkpoints} and whose Prometheus
     * reporters listen from {@code prometheusPort} (ten ports), with 1 s heartbeats that time out after 10 s; every
     * other port is a free one. Its processes and
     * its client get the S3 credentials from the environment ({@code AWS_ACCESS_KEY_ID}, {@code
     * AWS_SECRET_ACCESS_KEY}), as from a secret store, never from config.yaml: every deploy test proves it.
     */
    public static SessionCluster start(String name, int prometheusPort) throws Exception {
        Map<String, String> settings = new LinkedHashMap<>(SharedStack.get().s3().flinkSettings());
        settings.remove("s3.access-key");
        settings.remove("s3.secret-key");
        settings.put("execution.checkpointing.dir", "s3://" + SharedStack.BUCKET + "/" + name + "/checkpoints");
        settings.put("metrics.reporter.prom.port", prometheusPort + "-" + (prometheusPort + 10));
        // A killed process is noticed in seconds, not after Flink's default 50 s heartbeat timeout (a TaskManager
        // waited that long to register with a restarted JobManager): the same failovers, sooner.
        settings.put("heartbeat.interval", "1 s");
        settings.put("heartbeat.timeout", "10 s");
        // the CLI's JVMs (submit, list, stop: a few seconds each, dozens per run) gain nothing from C2's compiles
        settings.put("env.java.opts.client", "-XX:TieredStopAtLevel=1");
        SessionCluster cluster = new SessionCluster(Path.of("target", "flink", "lib"), Path.of("conf", "flink"),
                Path.of("target", "plugins"), Files.createTempDirectory(name), 0, settings)
                .withEnvironment(Map.of("AWS_ACCESS_KEY_ID", EmbeddedS3.ACCESS_KEY, "AWS_SECRET_ACCESS_KEY", EmbeddedS3.SECRET_KEY));
        cluster.start(1);
        return cluster;
    }

    public static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
