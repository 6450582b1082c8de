package io.archiver.upgrade;

import io.archiver.config.ArchiverConfig;
import io.archiver.job.JobLauncher;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;
import io.archiver.testutils.ArchiveAssertions;
import io.archiver.testutils.Jobs;
import io.archiver.testutils.ArchiveCounter;
import io.archiver.testutils.Await;
import io.archiver.testutils.KafkaTopicReader;
import io.archiver.testutils.SharedMiniCluster;
import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TestRecords;

import org.apache.flink.core.execution.JobClient;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every stored savepoint fixture (taken with a released version) restores with the current code and the job
 * continues exactly after the records archived before the savepoint: a change that breaks restoring an older
 * savepoint fails the build.
 */
@SharedMiniCluster
class SavepointCompatibilityITCase {

    private static final int RECORDS_AFTER = 50;
    private static List<ArchiveRecord> produced;

    static Stream<Path> fixtures() throws Exception {
        try (Stream<Path> versions = Files.list(SavepointFixtures.ROOT)) {
            List<Path> savepoints = versions.filter(Files::isDirectory).flatMap(SavepointCompatibilityITCase::savepointIn)
                    .sorted().collect(Collectors.toList());
            assertThat(savepoints).as("savepoint fixtures under " + SavepointFixtures.ROOT).isNotEmpty();
            return savepoints.stream();
        }
    }

    private static Stream<Path> savepointIn(Path version) {
        try (Stream<Path> entries = Files.list(version)) {
            return entries.filter(p -> Files.exists(p.resolve("_metadata"))).collect(Collectors.toList()).stream();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @BeforeAll
    static void produceTheFixtureTopic() throws Exception {
        SharedStack stack = SharedStack.get();
        stack.kafka().createTopic(SavepointFixtures.TOPIC, SavepointFixtures.PARTITIONS);
        int before = SavepointFixtures.RECORDS_BEFORE * SavepointFixtures.PARTITIONS;
        TestRecords.produce(stack.kafka().bootstrapServers(), SavepointFixtures.TOPIC, SavepointFixtures.PARTITIONS, 0,
                before + RECORDS_AFTER * SavepointFixtures.PARTITIONS);
        produced = KafkaTopicReader.readAll(stack.kafka().bootstrapServers(), SavepointFixtures.TOPIC);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fixtures")
    void fixtureRestoresAndContinuesExactlyAfterItsPosition(Path savepoint) throws Exception {
        String name = savepoint.getParent().getFileName() + "-" + savepoint.getFileName();
        Map<String, String> settings = new java.util.HashMap<>(SavepointFixtures.settingsOf(savepoint));
        settings.put("flink.execution.state-recovery.path", savepoint.toAbsolutePath().toUri().toString());
        ArchiverConfig config = SavepointFixtures.config("s3://" + SharedStack.BUCKET + "/fixture-restore-" + name).with(settings);
        JobClient job = JobLauncher.environment(config).executeAsync("restore " + name);
        List<ArchiveRecord> expected = produced.stream()
                .filter(r -> r.getOffset() >= SavepointFixtures.RECORDS_BEFORE)
                .collect(Collectors.toList());
        ArchiveCounter counter = new ArchiveCounter(config.sinkPath(), PayloadFormats.of(config));
        try {
            Await.until("records after the savepoint archived", Duration.ofMinutes(1), () -> counter.count() >= expected.size());
        } finally {
            Jobs.cancel(job);
        }
        ArchiveAssertions.assertExactlyOnce(config.sinkPath(), PayloadFormats.of(config), expected);
    }
}
