package io.archiver.config;

import org.apache.flink.configuration.ConfigOption;

import java.time.Duration;

import static org.apache.flink.configuration.ConfigOptions.key;

/** The job as a whole: its name, mode, parallelism, pre-flight checks and the Flink settings it passes on. Part of the option catalog {@link ArchiverOptions}. */
public final class JobOptions {

    /** Prefix of Flink settings applied to the job (and to the local Flink when started with java). */
    public static final String FLINK_PREFIX = "flink.";

    public static final ConfigOption<String> JOB_NAME =
            key("job.name")
                    .stringType()
                    .defaultValue("kafka-s3-archiver")
                    .withDescription("Name of the Flink job.");

    public static final ConfigOption<Mode> MODE =
            key("mode")
                    .enumType(Mode.class)
                    .defaultValue(Mode.STREAMING)
                    .withDescription(
                            "streaming runs until stopped; batch archives up to kafka.stop, commits every file and exits.");

    public static final ConfigOption<Integer> PARALLELISM =
            key("parallelism")
                    .intType()
                    .defaultValue(-1)
                    .withDescription(
                            "Parallelism of the job; -1 keeps the default of the cluster (or the number of cores locally).");

    public static final ConfigOption<Duration> PREFLIGHT_TIMEOUT =
            key("preflight.timeout")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(30))
                    .withDescription(
                            "Before submitting, check within this time that Kafka is reachable, the topics exist and the archive root is writable; 0 skips the check.");

    /** Fails on a parallelism that is neither -1 nor positive. */
    static void validate(ArchiverConfig config) {
        config.positive(PARALLELISM, config.get(PARALLELISM) == -1 || config.get(PARALLELISM) > 0, "-1 or a positive integer");
    }

    private JobOptions() {}
}
