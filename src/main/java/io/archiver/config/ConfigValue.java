package io.archiver.config;

import java.util.Locale;

/**
 * An enumerated configuration value with the lower-case name users write in the config file: the constant's
 * name in lower case, '_' written '-' ({@code DEAD_LETTER} is {@code dead-letter}).
 *
 * <p>Implementing enums return {@link #configName()} from {@code toString()}, which is what Flink's
 * configuration parser matches (case-insensitively) and what error messages list.
 */
public interface ConfigValue {

    /** The enum constant's name. */
    String name();

    /** The name written in configuration files, e.g. {@code dead-letter}. */
    default String configName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
