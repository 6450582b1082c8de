package io.archiver.config;

/** What happens to a record that cannot be written in the configured key/value/header format. */
public enum ErrorPolicy implements ConfigValue {
    /** fail the job, naming the record. */
    FAIL("fail"),
    /** skip it, count it in the recordsSkipped metric and log its position. */
    SKIP("skip"),
    /** write it unchanged (as bytes) to errors.dead-letter.path. */
    DEAD_LETTER("dead-letter");

    private final String configName;

    ErrorPolicy(String configName) {
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
