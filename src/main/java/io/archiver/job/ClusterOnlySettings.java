package io.archiver.job;

import io.archiver.config.ConfigException;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Flink settings that a cluster takes from its own configuration, never from a submitted job: file systems
 * (their endpoints and credentials), plugins, processes, memory, ports, metrics, security. Given as {@code
 * flink.*} options of a job submitted to a cluster they would be silently ignored (the job would run with the
 * cluster's S3 credentials while its configuration shows others), so the submission is refused instead. In a
 * job started with {@code java} they configure the local Flink and stay allowed.
 */
final class ClusterOnlySettings {

    private static final List<String> PREFIXES = List.of(
            "s3.", "s3a.", "fs.", "presto.s3.", "plugin.", "taskmanager.", "jobmanager.", "rest.", "web.", "metrics.",
            "env.", "high-availability", "blob.", "security.", "pekko.", "cluster.", "resourcemanager.", "kubernetes.",
            "yarn.", "io.tmp.dirs", "process.");

    private ClusterOnlySettings() {}

    /** Fails naming every cluster-only key of {@code flinkSettings} (keys without the {@code flink.} prefix). */
    static void refuseOnCluster(Map<String, String> flinkSettings) {
        Set<String> refused = new TreeSet<>();
        for (String key : flinkSettings.keySet()) {
            if (isClusterOnly(key)) {
                refused.add(key);
            }
        }
        if (refused.isEmpty()) {
            return;
        }
        List<String> asGiven = new ArrayList<>();
        refused.forEach(k -> asGiven.add("'flink." + k + "'"));
        throw new ConfigException(String.format(
                "%s %s the cluster's own: a job submitted to a cluster cannot set %s, and the job would run with the "
                        + "cluster's values instead. Set %s in the cluster's configuration (config.yaml of every JobManager and "
                        + "TaskManager, or its docker-compose environment), and remove %s from the job's configuration.",
                String.join(", ", asGiven), refused.size() == 1 ? "is a setting of" : "are settings of",
                refused.size() == 1 ? "it" : "them", String.join(", ", refused), refused.size() == 1 ? "it" : "them"));
    }

    static boolean isClusterOnly(String key) {
        for (String prefix : PREFIXES) {
            if (key.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }
}
