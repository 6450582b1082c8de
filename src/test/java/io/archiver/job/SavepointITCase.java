package io.archiver.job;

import io.archiver.config.ArchiverConfig;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;
import io.archiver.testutils.Await;
import io.archiver.testutils.Jobs;
import io.archiver.testutils.SharedMiniCluster;
import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TestRecords;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.archiver.testutils.ArchiveAssertions.archivedCount;
import static io.archiver.testutils.ArchiveAssertions.assertExactlyOnce;

/**
 * Stop-with-savepoint, records produced while no job runs, then a new job from the savepoint (also with
 * another parallelism): every record is archived exactly once across the stop.
 */
@SharedMiniCluster
class SavepointITCase {

    private static final int PARTITIONS = 4;
    private static final int BATCH = 4_000;

    @ParameterizedTest(name = "parallelism {0} -> {1}")
    @CsvSource({"2, 2", "1, 2", "2, 1"})
    void resumesFromSavepointWithoutLossOrDuplicates(int before, int after) throws Exception {
        SharedStack stack = SharedStack.get();
        String topic = SharedStack.uniqueName("savepoint");
        stack.kafka().createTopic(topic, PARTITIONS);
        Map<String, String> settings = stack.jobSettings(topic, topic);
        settings.put("parallelism", Integer.toString(before));
        ArchiverConfig first = ArchiverConfig.of(settings);
        PayloadFormats formats = PayloadFormats.of(first);
        String bootstrap = stack.kafka().bootstrapServers();

        List<ArchiveRecord> produced = new ArrayList<>(TestRecords.produce(bootstrap, topic, PARTITIONS, 0, BATCH));
        JobClient job = JobLauncher.environment(first).executeAsync("before savepoint");
        Await.until("first batch archived", Duration.ofSeconds(90),
                () -> archivedCount(first.sinkPath(), formats) >= BATCH);
        produced.addAll(TestRecords.produce(bootstrap, topic, PARTITIONS, BATCH, BATCH));
        String savepoint =
                job.stopWithSavepoint(false, "s3://" + SharedStack.BUCKET + "/savepoints/" + topic, SavepointFormatType.CANONICAL)
                        .get(60, TimeUnit.SECONDS);

        produced.addAll(TestRecords.produce(bootstrap, topic, PARTITIONS, 2 * BATCH, BATCH));
        ArchiverConfig second =
                first.with(Map.of(
                        "parallelism", Integer.toString(after),
                        "flink.execution.state-recovery.path", savepoint));
        JobClient resumed = JobLauncher.environment(second).executeAsync("after savepoint");
        try {
            Await.until("all records archived", Duration.ofSeconds(90),
                    () -> archivedCount(first.sinkPath(), formats) >= produced.size());
        } finally {
            Jobs.cancel(resumed);
        }
        assertExactlyOnce(first.sinkPath(), formats, produced);
    }
}
