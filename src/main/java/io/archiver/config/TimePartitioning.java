package io.archiver.config;

/** Time dimension of the Hive-style layout, taken from the record timestamp in UTC. */
public enum TimePartitioning implements ConfigValue {
    /** no time folder. */
    NONE,
    /** date=YYYY-MM-DD. */
    DAY,
    /** date=YYYY-MM-DD/hour=HH. */
    HOUR;

    @Override
    public String toString() {
        return configName();
    }
}
