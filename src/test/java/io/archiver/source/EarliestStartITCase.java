package io.archiver.source;

import io.archiver.config.ArchiverConfig;
import io.archiver.job.JobLauncher;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;
import io.archiver.testutils.ArchiveAssertions;
import io.archiver.testutils.ArchiveCounter;
import io.archiver.testutils.Jobs;
import io.archiver.testutils.KafkaTopicReader;
import io.archiver.testutils.SharedMiniCluster;
import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TestRecords;

import org.apache.flink.core.execution.JobClient;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code kafka.start=earliest} starts each new partition at offset 0 without asking Kafka ({@link LogStartOffsetsInitializer}):
 * where the log starts later (retention, deleted records), the consumer moves to the log start, and the archive holds
 * exactly what Kafka holds.
 */
@SharedMiniCluster
class EarliestStartITCase {

    @Test
    void aJobWithoutStateStartsAtTheLogStartOfPartitionsWhoseFirstRecordsWereDeleted() throws Exception {
        String bootstrap = SharedStack.get().kafka().bootstrapServers();
        String topic = SharedStack.uniqueName("log-start");
        SharedStack.get().kafka().createTopic(topic, 2);
        List<ArchiveRecord> produced = TestRecords.produce(bootstrap, topic, 2, 0, 200);
        Map<Integer, Long> logStart = Map.of(0, 40L, 1, 60L);
        try (Admin admin = Admin.create(TestRecords.client(bootstrap))) {
            admin.deleteRecords(Map.of(new TopicPartition(topic, 0), RecordsToDelete.beforeOffset(logStart.get(0)),
                    new TopicPartition(topic, 1), RecordsToDelete.beforeOffset(logStart.get(1)))).all().get(30, TimeUnit.SECONDS);
        }
        List<ArchiveRecord> held = produced.stream().filter(r -> r.getOffset() >= logStart.get(r.getPartition())).toList();
        assertThat(held).hasSize(200 - 40 - 60);

        ArchiverConfig config = ArchiverConfig.of(SharedStack.get().jobSettings(topic, topic)); // kafka.start: earliest, the default
        ArchiveCounter archived = new ArchiveCounter(config.sinkPath(), PayloadFormats.of(config));
        JobClient job = JobLauncher.environment(config).executeAsync("log start " + topic);
        try {
            Jobs.awaitWhileRunning(job, held.size() + " records archived", Duration.ofMinutes(2), () -> archived.count() >= held.size());
        } finally {
            Jobs.cancel(job);
        }
        ArchiveAssertions.assertExactlyOnce(config.sinkPath(), PayloadFormats.of(config), KafkaTopicReader.readCommitted(bootstrap, topic, held.size()));
    }
}
