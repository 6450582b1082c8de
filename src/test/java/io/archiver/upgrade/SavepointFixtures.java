package io.archiver.upgrade;

import io.archiver.config.ArchiverConfig;
import io.archiver.testutils.SharedStack;

import java.nio.file.Path;
import java.util.Map;

/**
 * The savepoint fixtures under {@code src/test/resources/savepoints/<version>/}: savepoints taken with a
 * released version of the archiver, on topic {@value #TOPIC} ({@value #PARTITIONS} partitions), after the
 * first {@value #RECORDS_BEFORE} records of each partition were archived. Every fixture must restore with
 * the current code.
 */
final class SavepointFixtures {

    static final String TOPIC = "savepoint-fixture";
    static final int PARTITIONS = 2;
    static final int RECORDS_BEFORE = 10;
    static final Path ROOT = Path.of("src", "test", "resources", "savepoints");

    private SavepointFixtures() {}

    /** Settings of the fixture job: only the archive root changes between runs. */
    static ArchiverConfig config(String sinkPath) {
        Map<String, String> settings = SharedStack.get().jobSettings(TOPIC, "fixture");
        settings.put("sink.path", sinkPath);
        settings.put("parallelism", "1");
        settings.put("kafka.group.id", "savepoint-fixture");
        return ArchiverConfig.of(settings);
    }
}
