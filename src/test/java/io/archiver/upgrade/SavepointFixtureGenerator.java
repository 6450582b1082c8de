package io.archiver.upgrade;

import io.archiver.config.ArchiverConfig;
import io.archiver.config.SinkLayout;
import io.archiver.job.JobLauncher;
import io.archiver.record.PayloadFormats;
import io.archiver.testutils.ArchiveCounter;
import io.archiver.testutils.Await;
import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TestRecords;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Writes a savepoint fixture for the current version, one per layout. Run it when releasing a version whose
 * state may differ, or on main when a state format changes: {@code mvn verify -Dtest=none
 * -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=SavepointFixtureGenerator -Dfixture.version=0.1.0}, then
 * commit the new folder.
 */
@ExtendWith(SharedStack.class)
@EnabledIfSystemProperty(named = "fixture.version", matches = ".+")
class SavepointFixtureGenerator {

    @Test
    void writeFixtures() throws Exception {
        Path target = SavepointFixtures.ROOT.resolve(System.getProperty("fixture.version")).toAbsolutePath();
        if (Files.exists(target)) {
            throw new IllegalStateException(target + " exists; fixtures are never overwritten");
        }
        SharedStack stack = SharedStack.get();
        stack.kafka().createTopic(SavepointFixtures.TOPIC, SavepointFixtures.PARTITIONS);
        TestRecords.produce(stack.kafka().bootstrapServers(), SavepointFixtures.TOPIC, SavepointFixtures.PARTITIONS, 0,
                SavepointFixtures.RECORDS_BEFORE * SavepointFixtures.PARTITIONS);
        for (SinkLayout layout : SinkLayout.values()) {
            Map<String, String> settings = Map.of("sink.layout", layout.configName());
            ArchiverConfig config = SavepointFixtures.config("s3://" + SharedStack.BUCKET + "/fixture-generation-" + layout.configName())
                    .with(settings);
            Path savepoint = writeSavepoint(config, target);
            SavepointFixtures.writeSettings(savepoint, settings);
            System.out.println("Savepoint fixture written: " + savepoint);
        }
    }

    private static Path writeSavepoint(ArchiverConfig config, Path target) throws Exception {
        JobClient job = JobLauncher.environment(config).executeAsync("fixture");
        ArchiveCounter counter = new ArchiveCounter(config.sinkPath(), PayloadFormats.of(config));
        Await.until("fixture records archived", Duration.ofMinutes(1),
                () -> counter.count() >= SavepointFixtures.RECORDS_BEFORE * SavepointFixtures.PARTITIONS);
        String savepoint = job.stopWithSavepoint(false, target.toUri().toString(), SavepointFormatType.CANONICAL)
                .get(1, TimeUnit.MINUTES);
        return Path.of(java.net.URI.create(savepoint));
    }
}
