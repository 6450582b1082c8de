package io.archiver.config;

/** Flink restart strategy of the job. */
public enum RestartStrategy implements ConfigValue {
    /** fail at the first error. */
    NONE("none"),
    /** restart.attempts restarts, restart.delay apart. */
    FIXED_DELAY("fixed-delay"),
    /** restart forever with a growing delay starting at restart.delay. */
    EXPONENTIAL_DELAY("exponential-delay");

    private final String configName;

    RestartStrategy(String configName) {
        this.configName = configName;
    }

    @Override
    public String configName() {
        return configName;
    }

    @Override
    public String toString() {
        return configName;
    }
}
