package io.archiver.cli;

/**
 * The logging configuration shipped in the jar ({@code archiver-log4j2.properties}: the archiver at INFO on
 * the console, warnings and errors of the rest), used when the command line runs with {@code java} and no
 * configuration of its own. Under {@code flink run} Flink's client has configured logging, and a user's
 * {@code -Dlog4j2.configurationFile} always wins.
 */
public final class DefaultLogging {

    static final String RESOURCE = "archiver-log4j2.properties";

    private DefaultLogging() {}

    /** Must run before the first logger is created. */
    public static void useUnlessConfigured() {
        if (System.getProperty("log4j2.configurationFile") == null
                && System.getProperty("log4j.configurationFile") == null
                && System.getenv("LOG4J_CONFIGURATION_FILE") == null) {
            System.setProperty("log4j2.configurationFile", RESOURCE);
        }
    }
}
