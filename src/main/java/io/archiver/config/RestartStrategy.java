package io.archiver.config;

/** Flink restart strategy of the job. */
public enum RestartStrategy implements ConfigValue {
    /** fail at the first error. */
    NONE,
    /** restart.attempts restarts, restart.delay apart. */
    FIXED_DELAY,
    /** restart forever with a growing delay starting at restart.delay. */
    EXPONENTIAL_DELAY;

    @Override
    public String toString() {
        return configName();
    }
}
