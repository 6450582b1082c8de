package io.archiver.upgrade;

import io.archiver.config.ArchiverConfig;
import io.archiver.testutils.SharedStack;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

/**
 * The savepoint fixtures under {@code src/test/resources/savepoints/<version>/}: savepoints taken with a
 * released version of the archiver (or with main when a state format changed), on topic {@value #TOPIC}
 * ({@value #PARTITIONS} partitions), after the first {@value #RECORDS_BEFORE} records of each partition were
 * archived. A fixture taken with settings other than the defaults (the layout) names them in
 * {@value #SETTINGS_FILE} beside its {@code _metadata}; it is restored with the same settings. Every fixture
 * must restore with the current code.
 */
final class SavepointFixtures {

    static final String TOPIC = "savepoint-fixture";
    static final int PARTITIONS = 2;
    static final int RECORDS_BEFORE = 10;
    static final Path ROOT = Path.of("src", "test", "resources", "savepoints");
    static final String SETTINGS_FILE = "fixture.properties";

    private SavepointFixtures() {}

    /** Settings of the fixture job: only the archive root changes between runs. */
    static ArchiverConfig config(String sinkPath) {
        Map<String, String> settings = SharedStack.get().jobSettings(TOPIC, "fixture");
        settings.put("sink.path", sinkPath);
        settings.put("parallelism", "1");
        settings.put("kafka.group.id", "savepoint-fixture");
        return ArchiverConfig.of(settings);
    }

    /** The settings a fixture was taken with beyond {@link #config}'s (none for fixtures without the file). */
    static Map<String, String> settingsOf(Path savepoint) throws IOException {
        Path file = savepoint.resolve(SETTINGS_FILE);
        Properties properties = new Properties();
        if (Files.exists(file)) {
            try (InputStream in = Files.newInputStream(file)) {
                properties.load(in);
            }
        }
        Map<String, String> settings = new java.util.TreeMap<>();
        properties.stringPropertyNames().forEach(name -> settings.put(name, properties.getProperty(name)));
        return settings;
    }

    static void writeSettings(Path savepoint, Map<String, String> settings) throws IOException {
        Properties properties = new Properties();
        properties.putAll(settings);
        try (OutputStream out = Files.newOutputStream(savepoint.resolve(SETTINGS_FILE))) {
            properties.store(out, "settings the fixture was taken with, besides SavepointFixtures.config");
        }
    }
}
