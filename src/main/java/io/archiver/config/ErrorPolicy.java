package io.archiver.config;

/** What happens to a record that cannot be written in the configured key/value/header format. */
public enum ErrorPolicy implements ConfigValue {
    /** fail the job, naming the record. */
    FAIL,
    /** skip it, count it in the recordsSkipped metric, log its position and record it (position and reason) in the skip log. */
    SKIP,
    /** write it unchanged (as bytes) to errors.dead-letter.path. */
    DEAD_LETTER;

    @Override
    public String toString() {
        return configName();
    }
}
