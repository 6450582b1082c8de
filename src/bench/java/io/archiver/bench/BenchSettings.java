package io.archiver.bench;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The archiver settings every benchmark job starts from, and the options given on the command line for all of
 * them: {@code -Dbench.set.<option>=<value>} (e.g. {@code -Dbench.set.sink.upload-threads=32}) sets an archiver
 * option in every job a benchmark runs, after the benchmark's own settings, so one build measures a setting
 * against its default.
 */
final class BenchSettings {

    private static final String SET_PREFIX = "bench.set.";

    private BenchSettings() {}

    /**
     * A job reading {@code topic} with consumer group {@code name} and archiving under {@code s3://bench/<name>},
     * parallelism 2, no restarts; {@code flinkS3} are the S3 server's Flink settings.
     */
    static Map<String, String> archiver(String bootstrapServers, String topic, String name, Map<String, String> flinkS3) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("kafka.bootstrap.servers", bootstrapServers);
        settings.put("kafka.topics", topic);
        settings.put("kafka.group.id", name);
        settings.put("sink.path", "s3://bench/" + name);
        settings.put("parallelism", "2");
        settings.put("restart.strategy", "none");
        flinkS3.forEach((k, v) -> settings.put("flink." + k, v));
        return settings;
    }

    /** {@code settings} with the command line's {@code bench.set.*} options applied last. */
    static Map<String, String> withCommandLine(Map<String, String> settings) {
        Map<String, String> all = new LinkedHashMap<>(settings);
        System.getProperties().stringPropertyNames().stream()
                .filter(k -> k.startsWith(SET_PREFIX))
                .forEach(k -> all.put(k.substring(SET_PREFIX.length()), System.getProperty(k)));
        return all;
    }

    /** A report's sentence naming the command line's {@code bench.set.*} options; empty when none. */
    static String described() {
        Map<String, String> set = withCommandLine(Map.of());
        return set.isEmpty() ? "" : " Archiver options set for every job: " + set + ".";
    }
}
