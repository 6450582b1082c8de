package io.archiver.config;

/** A configuration problem, worded for the operator: it names the key, what was wrong and the fix. */
public class ConfigException extends IllegalArgumentException implements UserFacingError {

    private static final long serialVersionUID = 1L;

    public ConfigException(String message) {
        super(message);
    }
}
