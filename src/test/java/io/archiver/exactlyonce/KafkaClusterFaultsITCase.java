package io.archiver.exactlyonce;

import io.archiver.config.ArchiverConfig;
import io.archiver.config.SinkLayout;
import io.archiver.job.JobLauncher;
import io.archiver.local.KafkaProcessCluster;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.DeadLetter;
import io.archiver.record.PayloadFormats;
import io.archiver.testutils.ArchiveAssertions;
import io.archiver.testutils.ArchiveCounter;
import io.archiver.testutils.Await;
import io.archiver.testutils.CapturedLogs;
import io.archiver.testutils.Cli;
import io.archiver.testutils.FaultScenario;
import io.archiver.testutils.Jobs;
import io.archiver.testutils.KafkaTopicReader;
import io.archiver.testutils.LongRunning;
import io.archiver.testutils.SharedMiniCluster;
import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TestRecords;

import org.apache.flink.core.execution.JobClient;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Faults of a production-shaped Kafka cluster: three brokers and a KRaft controller, each a JVM of its own, topics
 * replicated three times with {@code min.insync.replicas} 2 (the consumer offsets and transaction state too), while a
 * producer writes plain records and transactions, some aborted, and the job archives. Each fault hits two jobs at
 * once, one of each layout on a topic of its own, and each archive is checked against its topic's read_committed
 * truth, both ways: the leader of archived partitions killed with SIGKILL mid-stream (the
 * job archives on from the new leaders while it is down, then it comes back and catches up); a rolling restart, every
 * broker in turn shut down (controlled: leadership moved first) and started again, waiting for its replicas to be in
 * sync before the next. A partition whose only replica is killed stays offline for many checkpoint intervals: the job
 * names it, archives the other partitions meanwhile and resumes it once it is back. The coordinator of a consumer group the
 * job captures killed: the capture follows the group to its new coordinator, the job goes on. And an unclean leader election that truncates records the job archived: the job notices, never
 * archives those offsets again, keeps what Kafka wrote there since as dead letters, and audit reports the archived
 * records as truncated.
 */
@SharedMiniCluster
@LongRunning
class KafkaClusterFaultsITCase {

    private static final Duration IN_SYNC = Duration.ofMinutes(1);

    private static KafkaProcessCluster kafka;

    @BeforeAll
    static void startCluster() throws Exception {
        // under target/, so that the nodes' logs outlive a failed run
        Path nodes = Path.of("target", "kafka-cluster-faults");
        org.apache.flink.util.FileUtils.deleteDirectoryQuietly(nodes.toFile());
        kafka = KafkaProcessCluster.start(java.nio.file.Files.createDirectories(nodes), 3);
    }

    /** A broker a failed test left stopped is started again: the next test begins with the whole cluster. */
    @AfterEach
    void restartStoppedBrokers() throws Exception {
        kafka.restartStopped();
        kafka.awaitFullyReplicated(IN_SYNC);
    }

    @AfterAll
    static void stopCluster() {
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    void killNineOfTheLeaderOfArchivedPartitionsMidStreamLosesAndDoublesNothing() throws Exception {
        try (FaultScenario perPartition = scenario("leader-kill", SinkLayout.PER_PARTITION, 12_000, 1_000);
                FaultScenario perTopic = scenario("leader-kill", SinkLayout.PER_TOPIC, 12_000, 1_000)) {
            perPartition.awaitArchived(3_000);
            perTopic.awaitArchived(3_000);
            // brokers lead partitions of each topic in turn: the leader of one topic's partition 0 leads some of the other's too
            int leader = kafka.leaderOf(perPartition.topic(), 0);
            long killed = System.nanoTime();
            kafka.kill(leader);
            // archived on from the new leaders while the killed broker is down
            perPartition.awaitArchived(7_000);
            perTopic.awaitArchived(7_000);
            log("broker %d killed: archived on for %d ms", killed, leader);
            kafka.restart(leader);
            kafka.awaitFullyReplicated(IN_SYNC);
            log("broker %d back and in sync after %d ms", killed, leader);
            perPartition.finish();
            perTopic.finish();
        }
    }

    @Test
    void aRollingRestartOfEveryBrokerWhileTheJobArchivesLosesAndDoublesNothing() throws Exception {
        try (FaultScenario perPartition = scenario("rolling-restart", SinkLayout.PER_PARTITION, 12_000, 400);
                FaultScenario perTopic = scenario("rolling-restart", SinkLayout.PER_TOPIC, 12_000, 400)) {
            perPartition.awaitArchived(2_000);
            perTopic.awaitArchived(2_000);
            for (int broker : kafka.brokers()) {
                long start = System.nanoTime();
                kafka.shutdown(broker);
                log("broker %d: controlled shutdown in %d ms", start, broker);
                kafka.restart(broker);
                log("broker %d: restarted after %d ms", start, broker);
                kafka.awaitFullyReplicated(IN_SYNC);
                log("broker %d: in sync after %d ms", start, broker);
            }
            perPartition.finish();
            perTopic.finish();
        }
    }

    @Test
    void anUncleanLeaderElectionTruncatingArchivedRecordsIsNoticedAndTheArchiveKeepsThem() throws Exception {
        String topic = SharedStack.uniqueName("truncated");
        int leader = 1;
        int follower = 2;
        TopicPartition partition = new TopicPartition(topic, 0);
        kafka.admin().createTopics(List.of(new NewTopic(topic, Map.of(0, List.of(leader, follower)))
                .configs(Map.of("min.insync.replicas", "1", "unclean.leader.election.enable", "true")))).all().get(30, TimeUnit.SECONDS);
        Await.until(topic + " led by broker " + leader, IN_SYNC, () -> leaderOrNone(partition) == leader);
        List<ArchiveRecord> kept = TestRecords.produce(kafka.bootstrapServers(), topic, 1, 0, 100);
        Map<String, String> settings = SharedStack.get().jobSettings(topic, topic);
        settings.putAll(Map.of("kafka.bootstrap.servers", kafka.bootstrapServers(), "errors.policy", "dead-letter", "parallelism", "1",
                "restart.attempts", "20", "restart.delay", "500 ms"));
        ArchiverConfig config = ArchiverConfig.of(settings);
        ArchiveCounter archived = new ArchiveCounter(config.sinkPath(), PayloadFormats.of(config));
        ArchiveCounter deadLetters = new ArchiveCounter(config.deadLetterPath(), PayloadFormats.BYTES);
        List<ArchiveRecord> truncated;
        List<ArchiveRecord> writtenSince;
        try (CapturedLogs logs = CapturedLogs.start()) {
            JobClient job = JobLauncher.environment(config).executeAsync("truncation " + topic);
            try {
                Jobs.awaitWhileRunning(job, "100 records archived", IN_SYNC, () -> archived.count() >= 100);
                kafka.shutdown(follower); // out of the ISR: what follows has one copy, the leader's
                truncated = TestRecords.produce(kafka.bootstrapServers(), topic, 1, 100, 100);
                Jobs.awaitWhileRunning(job, "200 records archived", IN_SYNC, () -> archived.count() >= 200);
                kafka.kill(leader); // offsets 100..199 lost with it
                kafka.restart(follower);
                electUncleanly(partition); // the controller may have already: the topic allows it
                Await.until(topic + " led by broker " + follower, IN_SYNC, () -> leaderOrNone(partition) == follower);
                writtenSince = TestRecords.produce(kafka.bootstrapServers(), topic, 1, 1_000, 150);
                assertThat(writtenSince.get(0).getOffset()).as("the new leader's log ends where the follower left off").isEqualTo(100);
                Jobs.awaitWhileRunning(job, "the records beyond the archive's archived and the ones written over it dead-lettered",
                        IN_SYNC, () -> archived.count() >= 250 && deadLetters.count() >= 100);
                kafka.restart(leader); // truncates its log to the new leader's and follows it
                kafka.awaitFullyReplicated(IN_SYNC);
            } finally {
                Jobs.cancel(job);
            }
            assertThat(logs.containing(partition + ": offset ")).as("the truncation logged with its offsets")
                    .anyMatch(l -> l.contains("read again after offset 199 was archived"));
            assertThat(logs.containing(partition + ": offsets ")).anyMatch(l -> l.contains("..199 read again")
                    && l.contains(" 100 written by Kafka after the truncation"));
        }

        List<ArchiveRecord> expected = new ArrayList<>(kept);
        expected.addAll(truncated);
        expected.addAll(writtenSince.subList(100, 150));
        assertThat(byOffset(ArchiveAssertions.archived(config.sinkPath(), PayloadFormats.of(config))))
                .as("the archive: its records of offsets 100..199 kept, each offset once").isEqualTo(expected);
        List<ArchiveRecord> dead = byOffset(ArchiveAssertions.archived(config.deadLetterPath(), PayloadFormats.BYTES));
        assertThat(dead).as("what Kafka wrote over the archived offsets, kept as dead letters").isEqualTo(writtenSince.subList(0, 100));
        assertThat(dead).allMatch(d -> ((DeadLetter) d).getReason().startsWith(DeadLetter.KAFKA_TRUNCATED + ": offset " + d.getOffset()));
        List<ArchiveRecord> truth = new ArrayList<>(kept);
        truth.addAll(writtenSince);
        assertThat(byOffset(KafkaTopicReader.readCommitted(kafka.bootstrapServers(), topic, truth.size())))
                .as("Kafka's log now, read_committed").isEqualTo(truth);

        for (String[] audit : List.of(new String[] {"audit"}, new String[] {"audit", "--deep"})) {
            Cli.Result audited = Cli.run(config, audit);
            assertThat(audited.code()).as(audited.out()).isEqualTo(1);
            assertThat(audited.out()).as(String.join(" ", audit)).contains("Archived but no longer in Kafka, " + partition + ": 100 records Kafka TRUNCATED"
                    + " from its log after they were archived").contains("at 100..199").doesNotContain("Missing from").doesNotContain("Content differs");
        }
        Cli.Result repair = Cli.run(config, "repair");
        assertThat(repair.out()).contains("Left alone: " + partition + ": 100 archived records Kafka truncated from its log are kept")
                .contains("Nothing to repair");
    }

    @Test
    void aPartitionOfflineForManyCheckpointIntervalsIsNamedAndWaitedForWhileTheOthersAreArchived() throws Exception {
        String topic = SharedStack.uniqueName("offline");
        int alone = 1; // partition 0's only replica (Kafka wants one replication factor per topic: each partition has one)
        kafka.admin().createTopics(List.of(new NewTopic(topic, Map.of(0, List.of(alone), 1, List.of(2), 2, List.of(3)))
                .configs(Map.of("min.insync.replicas", "1")))).all().get(30, TimeUnit.SECONDS);
        Await.until(topic + " served", IN_SYNC, () -> leaderOrNone(new TopicPartition(topic, 0)) == alone);
        List<ArchiveRecord> produced = new ArrayList<>(TestRecords.produce(kafka.bootstrapServers(), topic, 3, 0, 300));
        Map<String, String> settings = SharedStack.get().jobSettings(topic, topic);
        settings.putAll(Map.of("kafka.bootstrap.servers", kafka.bootstrapServers(), "parallelism", "2"));
        ArchiverConfig config = ArchiverConfig.of(settings);
        ArchiveCounter archived = new ArchiveCounter(config.sinkPath(), PayloadFormats.of(config));
        TopicPartition offline = new TopicPartition(topic, 0);
        try (CapturedLogs logs = CapturedLogs.start()) {
            JobClient job = JobLauncher.environment(config).executeAsync("offline " + topic);
            try {
                Jobs.awaitWhileRunning(job, "300 records archived", IN_SYNC, () -> archived.count() >= 300);
                long killed = System.nanoTime();
                kafka.kill(alone);
                // the other partitions go on: records to them only while partition 0 has no leader
                produced.addAll(TestRecords.produce(kafka.bootstrapServers(), 300, 200, i -> TestRecords.record(topic, 1 + i % 2, i,
                        TestRecords.Timestamps.IN_ORDER)));
                Jobs.awaitWhileRunning(job, "the other partitions archived, partition 0 named as waited for", IN_SYNC,
                        () -> archived.count() >= 500 && !logs.containing("Kafka does not serve " + offline + " ").isEmpty());
                Await.until("partition 0 offline for 20 checkpoint intervals", IN_SYNC,
                        () -> System.nanoTime() - killed > TimeUnit.SECONDS.toNanos(10));
                kafka.restart(alone);
                produced.addAll(TestRecords.produce(kafka.bootstrapServers(), topic, 3, 500, 150));
                Jobs.awaitWhileRunning(job, "every record archived, partition 0 served again", IN_SYNC,
                        () -> archived.count() >= produced.size() && !logs.containing("Kafka serves " + offline + " again").isEmpty());
                log("broker %d, partition 0's only replica, killed: back and archived again after %d ms", killed, alone);
            } finally {
                Jobs.cancel(job);
            }
        }
        ArchiveAssertions.assertExactlyOnce(config.sinkPath(), PayloadFormats.of(config),
                KafkaTopicReader.readCommitted(kafka.bootstrapServers(), topic, produced.size()));
    }

    @Test
    void theGroupCoordinatorKilledWhileTheJobCapturesAGroupTheCaptureFollowsTheGroupToItsNewCoordinator() throws Exception {
        String topic = SharedStack.uniqueName("group-coordinator");
        String group = topic + "-billing";
        kafka.createTopic(topic, 3);
        List<ArchiveRecord> produced = TestRecords.produce(kafka.bootstrapServers(), topic, 3, 0, 300);
        Map<TopicPartition, Long> before = Map.of(new TopicPartition(topic, 0), 10L, new TopicPartition(topic, 1), 20L, new TopicPartition(topic, 2), 30L);
        Map<TopicPartition, Long> after = Map.of(new TopicPartition(topic, 0), 50L, new TopicPartition(topic, 1), 60L, new TopicPartition(topic, 2), 70L);
        commitOffsets(group, before);
        Map<String, String> settings = SharedStack.get().jobSettings(topic, topic);
        settings.putAll(Map.of("kafka.bootstrap.servers", kafka.bootstrapServers(), "parallelism", "2", "kafka.consumer-groups", group,
                "kafka.consumer-groups.interval", "200 ms"));
        ArchiverConfig config = ArchiverConfig.of(settings);
        ArchiveCounter archived = new ArchiveCounter(config.sinkPath(), PayloadFormats.of(config));
        io.archiver.capture.CaptureStore captured = new io.archiver.capture.CaptureStore(io.archiver.archive.ArchiveRoot.of(config));
        JobClient job = JobLauncher.environment(config).executeAsync("group coordinator " + topic);
        int coordinator;
        try {
            Jobs.awaitWhileRunning(job, "every record archived and the group's offsets captured", IN_SYNC,
                    () -> archived.count() >= produced.size() && capturedOffsets(captured, group).equals(before));
            coordinator = kafka.admin().describeConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS).get(group).coordinator().id();
            long killed = System.nanoTime();
            kafka.kill(coordinator);
            commitOffsets(group, after); // the group's consumer finds its new coordinator
            Jobs.awaitWhileRunning(job, "the group's new offsets captured from its new coordinator", IN_SYNC,
                    () -> capturedOffsets(captured, group).equals(after));
            log("broker %d, the group's coordinator, killed: its new offsets captured %d ms after", killed, coordinator);
        } finally {
            Jobs.cancel(job);
        }
        int now = kafka.admin().describeConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS).get(group).coordinator().id();
        assertThat(now).as("the group's coordinator moved").isNotEqualTo(coordinator);
        ArchiveAssertions.assertExactlyOnce(config.sinkPath(), PayloadFormats.of(config),
                KafkaTopicReader.readCommitted(kafka.bootstrapServers(), topic, produced.size()));
    }

    private static Map<TopicPartition, Long> capturedOffsets(io.archiver.capture.CaptureStore captured, String group) throws Exception {
        return captured.groupOffsets(group, null).map(io.archiver.capture.GroupOffsets::offsets).orElse(Map.of());
    }

    /** Commits {@code offsets} for {@code group}, as its consumer does after processing the records before them. */
    private static void commitOffsets(String group, Map<TopicPartition, Long> offsets) {
        java.util.Properties client = TestRecords.client(kafka.bootstrapServers());
        client.put(org.apache.kafka.clients.consumer.ConsumerConfig.GROUP_ID_CONFIG, group);
        try (org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]> consumer = new org.apache.kafka.clients.consumer.KafkaConsumer<>(
                client, new org.apache.kafka.common.serialization.ByteArrayDeserializer(), new org.apache.kafka.common.serialization.ByteArrayDeserializer())) {
            Map<TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> commit = new java.util.HashMap<>();
            offsets.forEach((tp, o) -> commit.put(tp, new org.apache.kafka.clients.consumer.OffsetAndMetadata(o)));
            consumer.assign(commit.keySet());
            consumer.commitSync(commit, Duration.ofMinutes(1));
        }
    }

    private static void electUncleanly(TopicPartition partition) throws Exception {
        try {
            kafka.admin().electLeaders(ElectionType.UNCLEAN, Set.of(partition)).all().get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (!(e.getCause() instanceof org.apache.kafka.common.errors.ElectionNotNeededException)) {
                throw e;
            }
        }
    }

    private static int leaderOrNone(TopicPartition partition) {
        try {
            return kafka.leaderOf(partition.topic(), partition.partition());
        } catch (Exception e) {
            return -1;
        }
    }

    private static List<ArchiveRecord> byOffset(List<ArchiveRecord> records) {
        List<ArchiveRecord> sorted = new ArrayList<>(records);
        sorted.sort(Comparator.comparingLong(ArchiveRecord::getOffset));
        return sorted;
    }

    /** A topic of the cluster with a producer of plain records and transactions (some aborted), archived by a job of {@code layout}. */
    private static FaultScenario scenario(String name, SinkLayout layout, int records, int perSecond) throws Exception {
        return FaultScenario.startOn(kafka, name, records, perSecond, Map.of("parallelism", "2", "sink.layout", layout.configName()));
    }

    private static void log(String format, long since, int broker) {
        System.err.printf("KafkaClusterFaultsITCase: " + format + "%n", broker, java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - since));
    }
}
