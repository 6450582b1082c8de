package io.archiver.config;

/**
 * An enumerated configuration value with the lower-case name users write in the config file.
 *
 * <p>{@code toString()} of implementing enums returns {@link #configName()}, which is what Flink's
 * configuration parser matches (case-insensitively) and what error messages list.
 */
public interface ConfigValue {

    /** The name written in configuration files, e.g. {@code dead-letter}. */
    String configName();
}
