package io.archiver.position;

import io.archiver.config.CheckpointOptions;
import io.archiver.config.ArchiverConfig;
import io.archiver.config.SinkLayout;
import io.archiver.job.JobLauncher;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;
import io.archiver.testutils.Await;
import io.archiver.testutils.Checkpoints;
import io.archiver.testutils.LongRunning;
import io.archiver.testutils.SharedMiniCluster;
import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TestRecords;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.archiver.testutils.ArchiveAssertions.archivedCount;
import static io.archiver.testutils.ArchiveAssertions.assertExactlyOnce;

/**
 * Partitions the source finds while it runs start from the earliest offset (the Kafka connector does not ask
 * the start-position initializer about them): partitions added to a topic, topics added to the
 * configuration. Those must not re-archive what the archive already holds, and stateless starts after them
 * must resume exactly.
 */
@SharedMiniCluster
@LongRunning(seconds = 30)
class ResumeDiscoveredPartitionsITCase {

    private static final Duration WAIT = Duration.ofSeconds(120);

    private final SharedStack stack = SharedStack.get();
    private final String bootstrap = stack.kafka().bootstrapServers();

    @ParameterizedTest
    @EnumSource(SinkLayout.class)
    void partitionsAddedWhileRunningAreArchivedOnceAndResumedWithoutState(SinkLayout layout) throws Exception {
        String topic = SharedStack.uniqueName("resume-grow");
        stack.kafka().createTopic(topic, 2);
        ArchiverConfig config = config(topic, topic, layout, Map.of("parallelism", "2"));
        PayloadFormats formats = PayloadFormats.of(config);

        List<ArchiveRecord> produced = new ArrayList<>(TestRecords.produce(bootstrap, topic, 2, 0, 2_000));
        JobClient job = launch(config);
        awaitArchived(config, produced.size());
        try (Admin admin = stack.kafka().admin()) {
            admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(4))).all().get();
        }
        produced.addAll(TestRecords.produce(bootstrap, topic, 4, 2_000, 4_000));
        awaitArchived(config, produced.size());
        cancel(config, job);

        produced.addAll(TestRecords.produce(bootstrap, topic, 4, 6_000, 2_000));
        JobClient stateless = launch(config.with(Map.of("parallelism", "3")));
        awaitArchived(config, produced.size());
        cancel(config, stateless);
        assertExactlyOnce(config.sinkPath(), formats, produced);
    }

    @ParameterizedTest
    @EnumSource(SinkLayout.class)
    void topicAddedToARestoredJobSkipsWhatTheArchiveAlreadyHolds(SinkLayout layout) throws Exception {
        String archive = SharedStack.uniqueName("resume-topics");
        String first = archive + "-a";
        String added = archive + "-b";
        stack.kafka().createTopic(first, 2);
        stack.kafka().createTopic(added, 2);

        // An earlier job archived the second topic into the same archive, then went away.
        ArchiverConfig earlier = config(added, archive, layout, Map.of());
        List<ArchiveRecord> produced = new ArrayList<>(TestRecords.produce(bootstrap, added, 2, 0, 3_000));
        JobClient job = launch(earlier);
        awaitArchived(earlier, produced.size());
        cancel(earlier, job);

        // The job of the first topic runs and is stopped with a savepoint.
        ArchiverConfig config = config(first, archive, layout, Map.of());
        produced.addAll(TestRecords.produce(bootstrap, first, 2, 0, 3_000));
        job = launch(config);
        awaitArchived(config, produced.size());
        String savepoint = job.stopWithSavepoint(false, "s3://" + SharedStack.BUCKET + "/savepoints/" + archive,
                SavepointFormatType.CANONICAL).get(2, TimeUnit.MINUTES);

        // Restored with the second topic added: its partitions are new to the source and start at earliest.
        produced.addAll(TestRecords.produce(bootstrap, first, 2, 3_000, 1_000));
        produced.addAll(TestRecords.produce(bootstrap, added, 2, 3_000, 1_000));
        ArchiverConfig both = config.with(Map.of(
                "kafka.topics", first + "," + added,
                "flink.execution.state-recovery.path", savepoint));
        job = launch(both);
        awaitArchived(both, produced.size());
        cancel(both, job);
        assertExactlyOnce(config.sinkPath(), PayloadFormats.of(config), produced);
    }

    private ArchiverConfig config(String topics, String archive, SinkLayout layout, Map<String, String> changes) {
        Map<String, String> settings = stack.jobSettings(topics, archive);
        settings.put("sink.layout", layout.configName());
        settings.put("checkpoint.dir", "s3://" + SharedStack.BUCKET + "/checkpoints/" + SharedStack.uniqueName(archive));
        settings.put("kafka.partition-discovery.interval", "1 s");
        settings.putAll(changes);
        return ArchiverConfig.of(settings);
    }

    private static JobClient launch(ArchiverConfig config) throws Exception {
        return JobLauncher.environment(config).executeAsync("resume " + config.sinkPath());
    }

    private static void awaitArchived(ArchiverConfig config, int records) throws Exception {
        PayloadFormats formats = PayloadFormats.of(config);
        Await.until(records + " records archived", WAIT, () -> archivedCount(config.sinkPath(), formats) >= records);
    }

    /** Cancels once the job has completed a checkpoint; nothing of its state is used afterwards. */
    private static void cancel(ArchiverConfig config, JobClient job) throws Exception {
        Checkpoints.latest(config.get(io.archiver.config.CheckpointOptions.CHECKPOINT_DIR) + "/" + job.getJobID());
        job.cancel().get(1, TimeUnit.MINUTES);
        Await.until("job cancelled", WAIT, () -> job.getJobStatus().get().isGloballyTerminalState());
    }
}
