package io.archiver.restore;

import io.archiver.archive.ArchiveRoot;
import io.archiver.capture.CaptureStore;
import io.archiver.capture.GroupOffsets;
import io.archiver.capture.TopicSettings;
import io.archiver.config.ArchiverConfig;
import io.archiver.job.JobLauncher;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;
import io.archiver.testutils.Await;
import io.archiver.testutils.Cli;
import io.archiver.testutils.ConsumerGroups;
import io.archiver.testutils.Jobs;
import io.archiver.testutils.SharedMiniCluster;
import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TestRecords;

import org.apache.flink.core.execution.JobClient;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.archiver.testutils.ArchiveAssertions.archivedCount;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A consumer group half-way through a topic; the topic archived (with the group's offsets and the topic's
 * settings), deleted, and restored by {@code restore --create-topics --consumer-groups}: the topic comes back
 * with its partitions and settings, and the group, reading on, gets exactly the records it had not processed,
 * in order: none twice, none missing, in a partition it had finished, at its start, and in the middle; also when
 * the restore is run again after retention deleted the restored topic's first records. The topic is transactional
 * with aborted transactions, so archived offsets and restored offsets differ.
 */
@SharedMiniCluster
class ConsumerGroupRestoreITCase {

    private static final int PARTITIONS = 3;
    private static final int RECORDS = 1_200;

    @Test
    void aGroupHalfWayThroughADeletedTopicResumesAtItsNextRecordAfterTheRestore() throws Exception {
        SharedStack stack = SharedStack.get();
        String bootstrap = stack.kafka().bootstrapServers();
        String topic = SharedStack.uniqueName("groups");
        String group = topic + "-billing";
        stack.kafka().createTopic(topic, PARTITIONS);
        try (Admin admin = stack.kafka().admin()) {
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, topic), List.of(
                    new AlterConfigOp(new ConfigEntry("retention.ms", "604800000"), AlterConfigOp.OpType.SET))))
                    .all().get(30, TimeUnit.SECONDS);
        }
        // transactions, every fourth aborted: source offsets have gaps (markers, aborted records) the target will not
        List<ArchiveRecord> produced = TestRecords.produceTransactions(bootstrap, topic, PARTITIONS, 0, RECORDS, 30, 4);
        // the group processed the first 100 records of partition 0, none of partition 1 and all of partition 2
        Map<TopicPartition, Long> processed = Map.of(
                new TopicPartition(topic, 0), offsetAfter(produced, 0, 100), new TopicPartition(topic, 1), 0L,
                new TopicPartition(topic, 2), endOffset(bootstrap, new TopicPartition(topic, 2)));
        long unprocessed = produced.stream()
                .filter(r -> r.getOffset() >= processed.get(new TopicPartition(topic, r.getPartition()))).count();
        ConsumerGroups.commit(bootstrap, group, processed);

        Map<String, String> settings = stack.jobSettings(topic, topic);
        settings.put("kafka.consumer-groups", group);
        settings.put("kafka.consumer-groups.interval", "200 ms");
        settings.put("parallelism", "4"); // more subtasks than partitions: the capturing one may read none
        ArchiverConfig config = ArchiverConfig.of(settings);
        CaptureStore captured = new CaptureStore(ArchiveRoot.of(config));
        JobClient job = JobLauncher.environment(config).executeAsync("archive " + topic);
        try {
            Jobs.awaitWhileRunning(job, "every record archived and the group's offsets captured", Duration.ofMinutes(2),
                    () -> archivedCount(config.sinkPath(), PayloadFormats.BYTES) >= produced.size()
                            && captured.groupOffsets(group, null).map(GroupOffsets::offsets).orElse(Map.of()).equals(processed));
        } finally {
            Jobs.cancel(job);
        }
        assertThat(captured.topic(topic)).contains(new TopicSettings(topic, PARTITIONS, Map.of("retention.ms", "604800000")));

        try (Admin admin = stack.kafka().admin()) {
            admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
            Await.until("topic deleted", Duration.ofSeconds(30),
                    () -> !admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(topic));
        }

        Cli.Result plan = Cli.run(config, "restore", "--consumer-groups", group, "--dry-run");
        assertThat(plan.code()).as(plan.out()).isZero();
        assertThat(plan.out()).contains(topic + "-0 at archived offset " + processed.get(new TopicPartition(topic, 0)) + " resumes in "
                + topic + "-0 after 100 restored records");

        Cli.Result restored = Cli.run(config, "restore", "--create-topics", "--consumer-groups", group);
        assertThat(restored.code()).as(restored.out()).isZero();
        assertThat(restored.out()).contains("Creating topic " + topic + ": 3 partitions, settings of '" + topic + "': {retention.ms=604800000}");
        try (Admin admin = stack.kafka().admin()) {
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            assertThat(admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS).get(resource).get("retention.ms").value())
                    .isEqualTo("604800000");
        }

        Map<Integer, List<String>> expected = ConsumerGroups.unprocessed(produced, processed);
        assertThat(ConsumerGroups.readOn(bootstrap, group, topic, PARTITIONS, (int) unprocessed)).isEqualTo(expected);

        // retention deletes the restored topic's first records, below the group in partition 0 and everything the group
        // had finished in partition 2: the same restore run again writes nothing and places the group where it was,
        // found by walking what was written alongside what is left, not by counting
        try (Admin admin = stack.kafka().admin()) {
            admin.deleteRecords(Map.of(new TopicPartition(topic, 0), RecordsToDelete.beforeOffset(50),
                    new TopicPartition(topic, 2), RecordsToDelete.beforeOffset(100))).all().get(30, TimeUnit.SECONDS);
        }
        Cli.Result again = Cli.run(config, "restore", "--consumer-groups", group);
        assertThat(again.code()).as(again.out()).isZero();
        assertThat(again.out()).contains("records already restored into " + topic);
        assertThat(ConsumerGroups.readOn(bootstrap, group, topic, PARTITIONS, (int) unprocessed)).isEqualTo(expected);
    }

    /** The offset after the {@code n}-th record of {@code partition} in {@code records}. */
    private static long offsetAfter(List<ArchiveRecord> records, int partition, int n) {
        return records.stream().filter(r -> r.getPartition() == partition).mapToLong(ArchiveRecord::getOffset).sorted()
                .skip(n - 1).findFirst().orElseThrow() + 1;
    }

    private static long endOffset(String bootstrap, TopicPartition tp) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(TestRecords.client(bootstrap), new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            return consumer.endOffsets(List.of(tp)).get(tp);
        }
    }
}
