package io.archiver.job;

import io.archiver.config.ArchiverConfig;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;
import io.archiver.testutils.SharedMiniCluster;
import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TestRecords;

import org.apache.flink.core.execution.JobClient;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static io.archiver.testutils.ArchiveAssertions.assertExactlyOnce;

/** Batch mode reads up to the stop position, commits every file and finishes by itself. */
@SharedMiniCluster
class BatchModeITCase {

    private static final int PARTITIONS = 4;

    @Test
    void stopsAtLatestWithEveryRecordArchivedOnce() throws Exception {
        SharedStack stack = SharedStack.get();
        String topic = SharedStack.uniqueName("backfill");
        stack.kafka().createTopic(topic, PARTITIONS);
        List<ArchiveRecord> produced =
                TestRecords.produce(stack.kafka().bootstrapServers(), topic, PARTITIONS, 0, 10_000);
        Map<String, String> settings = stack.jobSettings(topic, topic);
        settings.put("mode", "batch");
        settings.put("sink.format", "jsonl");
        ArchiverConfig config = ArchiverConfig.of(settings);

        runToCompletion(config);

        assertExactlyOnce(config.sinkPath(), PayloadFormats.of(config), produced);
    }

    @Test
    void stopsAtConfiguredOffsetsExclusive() throws Exception {
        SharedStack stack = SharedStack.get();
        String topic = SharedStack.uniqueName("backfill-offsets");
        stack.kafka().createTopic(topic, 2);
        List<ArchiveRecord> produced = TestRecords.produce(stack.kafka().bootstrapServers(), topic, 2, 0, 2_000);
        Map<String, String> settings = stack.jobSettings(topic, topic);
        settings.put("mode", "batch");
        settings.put("kafka.stop", "offsets:" + topic + ":0=100," + topic + ":1=250");
        ArchiverConfig config = ArchiverConfig.of(settings);

        runToCompletion(config);

        List<ArchiveRecord> expected =
                produced.stream()
                        .filter(r -> r.getOffset() < (r.getPartition() == 0 ? 100 : 250))
                        .collect(Collectors.toList());
        assertExactlyOnce(config.sinkPath(), PayloadFormats.of(config), expected);
    }

    private static void runToCompletion(ArchiverConfig config) throws Exception {
        JobClient job = JobLauncher.environment(config).executeAsync("backfill");
        job.getJobExecutionResult().get(120, TimeUnit.SECONDS);
    }
}
