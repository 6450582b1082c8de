package io.archiver.position;

import io.archiver.config.SourceOptions;
import io.archiver.archive.IncompleteUploads;
import io.archiver.config.SinkLayout;
import io.archiver.testutils.Await;
import io.archiver.testutils.FaultScenario;
import io.archiver.testutils.LongRunning;
import io.archiver.testutils.PositionProbe;
import io.archiver.testutils.S3Faults;
import io.archiver.testutils.SharedMiniCluster;
import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TestRecords;

import org.apache.flink.core.fs.Path;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The crash windows of a restart that has lost its checkpoints: each test stops the job in the window
 * (cancel, no savepoint used afterwards), starts a new job WITHOUT state and proves, record by record, that
 * every offset Kafka holds is archived exactly once. A producer writes throughout.
 */
@SharedMiniCluster
@LongRunning(seconds = 95)
class ResumeFromArchiveITCase {

    private static final Duration WAIT = Duration.ofMinutes(2);


    @ParameterizedTest
    @EnumSource(SinkLayout.class)
    void checkpointWhoseCommitWasCutShortIsCompletedByTheStatelessStart(SinkLayout layout) throws Exception {
        try (FaultScenario s = FaultScenario.start("resume-cut", 12_000, 2_000, Map.of("parallelism", "2", "sink.layout", layout.configName()))) {
            PositionProbe probe = new PositionProbe(s.config().sinkPath(), s.topic(), FaultScenario.PARTITIONS);
            cutACommitAndCancel(s, probe);

            s.restartWithoutState(Map.of());
            s.finish();
            assertThat(probe.uncommittedFiles()).as("files still uncommitted at the end").isEmpty();
        }
    }

    @ParameterizedTest
    @EnumSource(SinkLayout.class)
    void aCommitWhoseUploadsWereLostResumesAtTheirFirstOffsetsAndLaterStartsStayExact(SinkLayout layout) throws Exception {
        try (FaultScenario s = FaultScenario.start("resume-lost", 14_000, 2_000, Map.of("parallelism", "2", "sink.layout", layout.configName()))) {
            PositionProbe probe = new PositionProbe(s.config().sinkPath(), s.topic(), FaultScenario.PARTITIONS);
            abortUploadsOf(cutACommitAndCancel(s, probe));

            // the partitions of the lost files resume at their first offsets; what this job commits there is
            // their position from now on, below the one the cut commit recorded
            s.restartWithoutState(Map.of());
            s.awaitArchived(8_000);
            s.cancel();
            assertThat(probe.positionObjects()).as("one positions object per committer subtask").containsExactlyInAnyOrder("0.json", "1.json");
            // records in every partition for the next start, also when the job before archived all the scenario's
            // (then its third subtask had nothing to commit: a race this test lost once)
            TestRecords.produce(SharedStack.get().kafka().bootstrapServers(), s.topic(), FaultScenario.PARTITIONS, 1_000_000, 400);
            s.restartWithoutState(Map.of("parallelism", "3"));
            s.finish();
            assertThat(probe.positionObjects()).containsExactlyInAnyOrder("0.json", "1.json", "2.json");
        }
    }

    @Test
    void recordTimeFoldersSpreadingOneCheckpointOverSeveralFilesResumeExactly() throws Exception {
        Map<String, String> settings = Map.of("parallelism", "1", "sink.time-partitioning", "hour");
        try (FaultScenario s = FaultScenario.start("resume-hours", 16_000, 800, settings, TestRecords.Timestamps.OUT_OF_ORDER)) {
            PositionProbe probe = new PositionProbe(s.config().sinkPath(), s.topic(), FaultScenario.PARTITIONS);
            s.awaitArchived(4_000);
            cutCommitInTheMiddleOfACheckpoint(s, probe);
            assertThat(probe.records()).as("position records of the cut commit").isNotEmpty()
                    .anySatisfy(r -> assertThat(r.files()).as("files of one partition in one checkpoint").hasSizeGreaterThan(1));
            s.cancel();
            s.s3Faults().heal();
            s.restartWithoutState(Map.of("parallelism", "3"));
            s.awaitArchived(10_000);
            s.cancel();
            s.restartWithoutState(Map.of("parallelism", "2"));
            s.finish();
        }
    }

    @Test
    void consumerGroupOffsetsBehindOrAheadOfTheArchiveDoNotMoveTheResumePosition() throws Exception {
        Map<String, String> settings = Map.of("parallelism", "2", "kafka.start", "committed");
        try (FaultScenario s = FaultScenario.start("resume-group", 12_000, 3_000, settings)) {
            s.awaitArchived(5_000);
            s.cancel();
            moveGroupOffsets(s);
            s.restartWithoutState(Map.of());
            s.finish();
        }
    }

    @ParameterizedTest
    @EnumSource(SinkLayout.class)
    void statelessStartsAfterRescalesResumeExactly(SinkLayout layout) throws Exception {
        try (FaultScenario s = FaultScenario.start("resume-rescale", 18_000, 3_000, Map.of("parallelism", "2", "sink.layout", layout.configName()))) {
            s.awaitArchived(4_000);
            s.resume(s.stopWithSavepoint(), 3);
            s.awaitArchived(8_000);
            s.cancel();
            s.restartWithoutState(Map.of("parallelism", "1"));
            s.awaitArchived(12_000);
            s.cancel();
            s.restartWithoutState(Map.of("parallelism", "4"));
            s.finish();
        }
    }

    @Test
    void restoreFromASavepointOlderThanTheArchiveSkipsWhatALaterJobArchived() throws Exception {
        try (FaultScenario s = FaultScenario.start("resume-old-savepoint", 12_000, 3_000, Map.of("parallelism", "2"))) {
            s.awaitArchived(3_000);
            String old = s.stopWithSavepoint();
            s.restartWithoutState(Map.of());
            s.awaitArchived(7_000);
            s.cancel();
            s.resume(old, 2);
            s.finish();
        }
    }

    /** Once 2,000 records are archived, cuts a commit in the middle of a checkpoint and cancels the job: the files not committed. */
    private List<String> cutACommitAndCancel(FaultScenario s, PositionProbe probe) throws Exception {
        s.awaitArchived(2_000);
        cutCommitInTheMiddleOfACheckpoint(s, probe);
        s.cancel();
        s.s3Faults().heal();
        List<String> cutShort = probe.uncommittedFiles();
        assertThat(cutShort).as("files of the cut commit").isNotEmpty();
        return cutShort;
    }

    /**
     * Lets one more file commit, then refuses every commit until the position records show a checkpoint
     * whose files are partly visible. The job keeps failing its commits (and restarting) meanwhile.
     */
    private void cutCommitInTheMiddleOfACheckpoint(FaultScenario s, PositionProbe probe) throws Exception {
        S3Faults faults = s.s3Faults();
        for (int attempt = 1; ; attempt++) {
            faults.haltCompletesAfter(1);
            Await.until("commits halted", WAIT, faults::completesHalted);
            Await.until("a position record listing an uncommitted file", WAIT, () -> !probe.uncommittedFiles().isEmpty());
            if (probe.checkpointPartlyCommitted()) {
                return;
            }
            assertThat(attempt).as("attempts to cut a commit in the middle of a checkpoint").isLessThan(8);
            faults.heal();
            Await.until("the halted commit completed", WAIT, () -> probe.uncommittedFiles().isEmpty());
        }
    }

    /** Partitions 0 and 1 of the group back to offset 0, partitions 2 and 3 to the log end. */
    /** Aborts the multipart uploads of {@code files}, as a lifecycle rule does with old incomplete uploads. */
    private static void abortUploadsOf(List<String> files) throws Exception {
        IncompleteUploads uploads = SharedStack.get().uploads();
        int aborted = 0;
        for (String file : files) {
            Path path = new Path(file);
            String key = path.toUri().getPath().substring(1);
            for (IncompleteUploads.Upload u : uploads.list(path.getParent().toString())) {
                if (u.key().equals(key)) {
                    uploads.abort(u);
                    aborted++;
                }
            }
        }
        assertThat(aborted).as("uploads aborted").isEqualTo(files.size());
    }

    private static void moveGroupOffsets(FaultScenario s) throws Exception {
        String group = s.config().get(io.archiver.config.SourceOptions.KAFKA_GROUP_ID);
        try (Admin admin = SharedStack.get().kafka().admin()) {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int p = 2; p < FaultScenario.PARTITIONS; p++) {
                latest.put(new TopicPartition(s.topic(), p), OffsetSpec.latest());
            }
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            admin.listOffsets(latest).all().get().forEach((tp, info) -> offsets.put(tp, new OffsetAndMetadata(info.offset())));
            offsets.put(new TopicPartition(s.topic(), 0), new OffsetAndMetadata(0));
            offsets.put(new TopicPartition(s.topic(), 1), new OffsetAndMetadata(0));
            admin.alterConsumerGroupOffsets(group, offsets).all().get();
        }
    }
}
