package io.archiver.config;

/** Time dimension of the Hive-style layout, taken from the record timestamp in UTC. */
public enum TimePartitioning implements ConfigValue {
    /** no time folder. */
    NONE("none"),
    /** date=YYYY-MM-DD. */
    DAY("day"),
    /** date=YYYY-MM-DD/hour=HH. */
    HOUR("hour");

    private final String configName;

    TimePartitioning(String configName) {
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
