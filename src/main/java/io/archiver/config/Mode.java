package io.archiver.config;

/** How the job runs. */
public enum Mode implements ConfigValue {
    /** unbounded; runs until stopped, commits on every checkpoint. */
    STREAMING("streaming"),
    /** bounded; reads up to the stop position, commits every file and exits. */
    BATCH("batch");

    private final String configName;

    Mode(String configName) {
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
