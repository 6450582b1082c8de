package io.archiver.config;

import org.apache.flink.configuration.ConfigOption;

import java.time.Duration;

import static org.apache.flink.configuration.ConfigOptions.key;

/** Checkpoints and restarts. Part of the option catalog {@link ArchiverOptions}. */
public final class CheckpointOptions {

    public static final ConfigOption<Duration> CHECKPOINT_INTERVAL =
            key("checkpoint.interval")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(30))
                    .withDescription(
                            "Exactly-once checkpoint interval. Files become visible in the archive when the checkpoint that covers them completes.");

    public static final ConfigOption<Duration> CHECKPOINT_TIMEOUT =
            key("checkpoint.timeout")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(10))
                    .withDescription("A checkpoint that takes longer is aborted.");

    public static final ConfigOption<String> CHECKPOINT_DIR =
            key("checkpoint.dir")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Checkpoint storage URI (s3://... or file://...). Default: the cluster's execution.checkpointing.dir. "
                                    + "Checkpoints are retained on cancellation.");

    public static final ConfigOption<RestartStrategy> RESTART_STRATEGY =
            key("restart.strategy")
                    .enumType(RestartStrategy.class)
                    .defaultValue(RestartStrategy.EXPONENTIAL_DELAY)
                    .withDescription("How the job restarts after a failure.");

    public static final ConfigOption<Integer> RESTART_ATTEMPTS =
            key("restart.attempts")
                    .intType()
                    .defaultValue(10)
                    .withDescription("Restarts allowed by restart.strategy=fixed-delay.");

    public static final ConfigOption<Duration> RESTART_DELAY =
            key("restart.delay")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(5))
                    .withDescription("Delay before a restart (the initial delay for exponential-delay).");

    /** Fails on negative restart attempts and checkpoint intervals under 10 ms. */
    static void validate(ArchiverConfig config) {
        config.positive(RESTART_ATTEMPTS, config.get(RESTART_ATTEMPTS) >= 0, "0 or more");
        config.positive(CHECKPOINT_INTERVAL, config.get(CHECKPOINT_INTERVAL).toMillis() >= 10, "at least 10 ms");
    }

    private CheckpointOptions() {}
}
