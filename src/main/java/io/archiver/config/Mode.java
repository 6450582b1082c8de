package io.archiver.config;

/** How the job runs. */
public enum Mode implements ConfigValue {
    /** unbounded; runs until stopped, commits on every checkpoint. */
    STREAMING,
    /** bounded; reads up to the stop position, commits every file and exits. */
    BATCH;

    @Override
    public String toString() {
        return configName();
    }
}
