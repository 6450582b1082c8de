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
import io.archiver.testutils.Checkpoints;
import io.archiver.testutils.Cli;
import io.archiver.testutils.ConsumerGroups;
import io.archiver.testutils.FaultScenario;
import io.archiver.testutils.Jobs;
import io.archiver.testutils.KafkaTopicReader;
import io.archiver.testutils.LayoutScenarios;
import io.archiver.testutils.LongRunning;
import io.archiver.testutils.SharedMiniCluster;
import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TestRecords;

import org.apache.flink.core.execution.JobClient;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
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
 * sync before the next. A partition whose only replica is down when the job starts is named by the pre-flight; the job
 * archives the other partitions and that one once Kafka serves it; killed again later, it stays offline for many checkpoint intervals: the job names it, archives the
 * other partitions meanwhile and resumes it once it is back. The coordinator of a consumer group the
 * job captures killed: the capture follows the group to its new coordinator, the job goes on. A restore (the archive back
 * into Kafka, in transactions) whose transaction coordinator is killed with SIGKILL while it has a transaction open: the
 * restore finishes by itself, the restored topic read_committed equals the archive record for record, in order, and
 * {@code restore --verify} agrees. A restore placing a consumer group in the restored topic whose group coordinator is
 * killed as the placement begins (its records written): the placement follows the group to its new coordinator, and the
 * group reads on in the restored topic from exactly its next record. And an unclean leader election that truncates records the job archived: the job notices, never
 * archives those offsets again, keeps what Kafka wrote there since as dead letters, and audit reports the archived
 * records as truncated.
 */
@SharedMiniCluster
@LongRunning(seconds = 281)
class KafkaClusterFaultsITCase {

    private static final Duration IN_SYNC = Duration.ofMinutes(1);
    /** The brokers of the truncation tests' partition: its leader, and the follower elected uncleanly. */
    private static final int LEADER = 1;
    private static final int FOLLOWER = 2;

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
        try (LayoutScenarios both = LayoutScenarios.start(layout -> scenario("leader-kill", layout, 12_000, 1_000))) {
            both.awaitArchived(3_000);
            // brokers lead partitions of each topic in turn: the leader of one topic's partition 0 leads some of the other's too
            int leader = kafka.leaderOf(both.first().topic(), 0);
            long killed = System.nanoTime();
            kafka.kill(leader);
            both.awaitArchived(7_000); // archived on from the new leaders while the killed broker is down
            log("broker %d killed: archived on for %d ms", killed, leader);
            kafka.restart(leader);
            kafka.awaitFullyReplicated(IN_SYNC);
            log("broker %d back and in sync after %d ms", killed, leader);
            both.finish();
        }
    }

    @Test
    void aRollingRestartOfEveryBrokerWhileTheJobArchivesLosesAndDoublesNothing() throws Exception {
        try (LayoutScenarios both = LayoutScenarios.start(layout -> scenario("rolling-restart", layout, 12_000, 400))) {
            both.awaitArchived(2_000);
            for (int broker : kafka.brokers()) {
                long start = System.nanoTime();
                kafka.shutdown(broker);
                log("broker %d: controlled shutdown in %d ms", start, broker);
                kafka.restart(broker);
                log("broker %d: restarted after %d ms", start, broker);
                kafka.awaitFullyReplicated(IN_SYNC);
                log("broker %d: in sync after %d ms", start, broker);
            }
            both.finish();
        }
    }

    @Test
    void theTransactionCoordinatorKilledWhileARestoreHasATransactionOpenTheRestoreFinishesWithEachRecordOnce() throws Exception {
        String topic = SharedStack.uniqueName("coordinator-kill");
        kafka.createTopic(topic, 3);
        List<ArchiveRecord> records = TestRecords.produce(kafka.bootstrapServers(), topic, 3, 0, 30_000);
        Map<String, String> settings = SharedStack.get().jobSettings(topic, topic);
        settings.putAll(Map.of("kafka.bootstrap.servers", kafka.bootstrapServers(), "mode", "batch", "sink.format", "jsonl",
                "sink.roll.max-part-size", "64 kb"));
        ArchiverConfig config = ArchiverConfig.of(settings);
        JobLauncher.environment(config).executeAsync("archive " + topic).getJobExecutionResult().get(2, TimeUnit.MINUTES);
        String target = topic + "-restored";
        kafka.createTopic(target, 3);

        // checkpoints 4 s apart: each of the restore's transactions stays open for seconds
        ArchiverConfig restoring = config.with(Map.of("restore.checkpoint-interval", "4 s"));
        CompletableFuture<Cli.Result> restore = CompletableFuture.supplyAsync(() -> Cli.run(restoring, "restore", "--topics", topic,
                "--rename", topic + "=" + target));
        int[] coordinator = {-1};
        Await.until("a transaction of the restore open", Duration.ofMinutes(2), () -> {
            coordinator[0] = openTransactionCoordinator();
            return coordinator[0] >= 0 || restore.isDone();
        });
        assertThat(coordinator[0]).as("the coordinator of a transaction the restore had open").isPositive();
        long killed = System.nanoTime();
        kafka.kill(coordinator[0]);
        Cli.Result restored;
        try {
            restored = restore.get(4, TimeUnit.MINUTES);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("The restore did not end within 4 minutes of its transaction coordinator's kill; where it waits:\n"
                    + Jobs.threadDump("Kafka sink", "kafka-producer", "Read archive", "Checkpoint", "restore"), e);
        }
        log("broker %d, the restore's transaction coordinator, killed: the restore ended %d ms after", killed, coordinator[0]);
        assertThat(restored.code()).as(restored.out()).isZero();
        kafka.restart(coordinator[0]);
        kafka.awaitFullyReplicated(IN_SYNC);

        assertThat(TestRecords.byPartition(KafkaTopicReader.readCommitted(kafka.bootstrapServers(), target, records.size())))
                .as("the restored topic, read_committed").isEqualTo(TestRecords.byPartition(records));
        Cli.Result verified = Cli.run(restoring, "restore", "--topics", topic, "--rename", topic + "=" + target, "--verify");
        assertThat(verified.code()).as(verified.out()).isZero();
    }

    @Test
    void theGroupCoordinatorKilledAsARestorePlacesAGroupTheGroupResumesAtItsNextRecordInTheRestoredTopic() throws Exception {
        String topic = SharedStack.uniqueName("placement-kill");
        String group = topic + "-billing";
        kafka.createTopic(topic, 3);
        // transactions, every fourth aborted: the restored records get other offsets than the archived ones
        List<ArchiveRecord> produced = TestRecords.produceTransactions(kafka.bootstrapServers(), topic, 3, 0, 3_000, 30, 4);
        // the group processed 100 records of partition 0, none of partition 1 and 500 of partition 2
        Map<TopicPartition, Long> processed = Map.of(new TopicPartition(topic, 0), nextOffset(produced, 0, 100),
                new TopicPartition(topic, 1), nextOffset(produced, 1, 0), new TopicPartition(topic, 2), nextOffset(produced, 2, 500));
        ConsumerGroups.commit(kafka.bootstrapServers(), group, processed);
        Map<String, String> settings = SharedStack.get().jobSettings(topic, topic);
        settings.putAll(Map.of("kafka.bootstrap.servers", kafka.bootstrapServers(), "mode", "batch", "kafka.consumer-groups", group));
        ArchiverConfig config = ArchiverConfig.of(settings);
        JobLauncher.environment(config).executeAsync("archive " + topic).getJobExecutionResult().get(2, TimeUnit.MINUTES);
        assertThat(capturedOffsets(new io.archiver.capture.CaptureStore(io.archiver.archive.ArchiveRoot.of(config)), group))
                .as("the group's offsets captured with the archive").isEqualTo(processed);
        String target = topic + "-restored";
        kafka.createTopic(target, 3);

        Cli.Result written = Cli.run(config, "restore", "--topics", topic, "--rename", topic + "=" + target);
        assertThat(written.code()).as(written.out()).isZero();
        // the same restore with the group: it writes nothing twice and places the group, as the coordinator's kill moves it
        int coordinator = groupCoordinator(group);
        long killed = System.nanoTime();
        kafka.kill(coordinator);
        Cli.Result placed = Cli.run(config, "restore", "--topics", topic, "--rename", topic + "=" + target, "--consumer-groups", group);
        log("broker %d, the group's coordinator, killed as a restore placed the group: placed %d ms after", killed, coordinator);
        assertThat(placed.code()).as(placed.out()).isZero();
        assertThat(placed.out()).contains("records already restored into " + target, "consumer group " + group + ": committed offset");
        assertThat(groupCoordinator(group)).as("the group's coordinator moved").isNotEqualTo(coordinator);
        kafka.restart(coordinator);
        kafka.awaitFullyReplicated(IN_SYNC);

        assertThat(TestRecords.byPartition(KafkaTopicReader.readCommitted(kafka.bootstrapServers(), target, produced.size())))
                .as("the restored topic, read_committed").isEqualTo(TestRecords.byPartition(produced));
        Map<Integer, List<String>> unprocessed = ConsumerGroups.unprocessed(produced, processed);
        int left = unprocessed.values().stream().mapToInt(List::size).sum();
        assertThat(ConsumerGroups.readOn(kafka.bootstrapServers(), group, target, 3, left))
                .as("what the group reads on in the restored topic").isEqualTo(unprocessed);
    }

    /** The offset of the record after the first {@code n} of {@code partition} in {@code records}: a group's next after n processed. */
    private static long nextOffset(List<ArchiveRecord> records, int partition, int n) {
        return records.stream().filter(r -> r.getPartition() == partition).mapToLong(ArchiveRecord::getOffset).sorted()
                .skip(n).findFirst().orElseThrow();
    }

    private static int groupCoordinator(String group) throws Exception {
        return kafka.admin().describeConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS).get(group).coordinator().id();
    }

    /** The broker coordinating a transaction now open on the cluster (the restore's: no other writes then); -1 for none. */
    private static int openTransactionCoordinator() throws Exception {
        List<String> open = kafka.admin().listTransactions(new ListTransactionsOptions().filterStates(List.of(TransactionState.ONGOING)))
                .all().get(10, TimeUnit.SECONDS).stream().map(TransactionListing::transactionalId).toList();
        return open.isEmpty() ? -1
                : kafka.admin().describeTransactions(open).all().get(10, TimeUnit.SECONDS).values().iterator().next().coordinatorId();
    }

    @Test
    void anUncleanLeaderElectionTruncatingArchivedRecordsIsNoticedAndTheArchiveKeepsThem() throws Exception {
        TopicPartition partition = uncleanTopic("truncated");
        String topic = partition.topic();
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
                kafka.shutdown(FOLLOWER); // out of the ISR: what follows has one copy, the leader's
                truncated = TestRecords.produce(kafka.bootstrapServers(), topic, 1, 100, 100);
                Jobs.awaitWhileRunning(job, "200 records archived", IN_SYNC, () -> archived.count() >= 200);
                kafka.kill(LEADER); // offsets 100..199 lost with it
                kafka.restart(FOLLOWER);
                electUncleanly(partition); // the controller may have already: the topic allows it
                Await.until(topic + " led by broker " + FOLLOWER, IN_SYNC, () -> leaderOrNone(partition) == FOLLOWER);
                writtenSince = TestRecords.produce(kafka.bootstrapServers(), topic, 1, 1_000, 150);
                assertThat(writtenSince.get(0).getOffset()).as("the new leader's log ends where the follower left off").isEqualTo(100);
                Jobs.awaitWhileRunning(job, "the records beyond the archive's archived and the ones written over it dead-lettered",
                        IN_SYNC, () -> archived.count() >= 250 && deadLetters.count() >= 100);
                kafka.restart(LEADER); // truncates its log to the new leader's and follows it
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

    /** How a stopped job starts again: from its retained checkpoint, or without state, from the archive's positions. */
    enum Restart {
        FROM_CHECKPOINT("while the job was stopped"), WITHOUT_STATE("since the archive took those records");

        final String named;

        Restart(String named) {
            this.named = named;
        }
    }

    @ParameterizedTest
    @EnumSource(Restart.class)
    void anUncleanLeaderElectionWhileTheJobIsStoppedIsNamedWhenItStartsAgain(Restart restart) throws Exception {
        TopicPartition partition = uncleanTopic("truncated-stopped");
        String topic = partition.topic();
        List<ArchiveRecord> kept = new ArrayList<>(TestRecords.produce(kafka.bootstrapServers(), topic, 1, 0, 100));
        Map<String, String> settings = SharedStack.get().jobSettings(topic, topic);
        settings.putAll(Map.of("kafka.bootstrap.servers", kafka.bootstrapServers(), "parallelism", "1",
                "checkpoint.dir", "s3://" + SharedStack.BUCKET + "/checkpoints/" + topic));
        ArchiverConfig config = ArchiverConfig.of(settings);
        ArchiveCounter archived = new ArchiveCounter(config.sinkPath(), PayloadFormats.of(config));
        JobClient job = JobLauncher.environment(config).executeAsync("truncation while stopped " + topic);
        try {
            Jobs.awaitWhileRunning(job, "100 records archived", IN_SYNC, () -> archived.count() >= 100);
            kafka.shutdown(FOLLOWER); // out of the ISR: what follows has one copy, the leader's
            kept.addAll(TestRecords.produce(kafka.bootstrapServers(), topic, 1, 100, 100));
            Jobs.awaitWhileRunning(job, "200 records archived", IN_SYNC, () -> archived.count() >= 200);
        } finally {
            Jobs.cancel(job);
        }
        String checkpoint = Checkpoints.latest(config.get(io.archiver.config.CheckpointOptions.CHECKPOINT_DIR) + "/" + job.getJobID());
        // while the job is stopped: offsets 100..199 lost with the leader, and the log grows past the job's position again
        kafka.kill(LEADER);
        kafka.restart(FOLLOWER);
        electUncleanly(partition);
        Await.until(topic + " led by broker " + FOLLOWER, IN_SYNC, () -> leaderOrNone(partition) == FOLLOWER);
        List<ArchiveRecord> writtenSince = TestRecords.produce(kafka.bootstrapServers(), topic, 1, 1_000, 150);
        assertThat(writtenSince.get(0).getOffset()).isEqualTo(100);

        // from the checkpoint, the job knows the last record it passed; without state, the archive's position record says it
        ArchiverConfig resumed = restart == Restart.FROM_CHECKPOINT ? config.with(Map.of("flink.execution.state-recovery.path", checkpoint)) : config;
        String named = partition + ": Kafka truncated the partition's log " + restart.named;
        try (CapturedLogs logs = CapturedLogs.start()) {
            JobClient again = JobLauncher.environment(resumed).executeAsync("truncation while stopped, started again " + topic);
            try {
                Jobs.awaitWhileRunning(again, "offsets 200..249 archived and the truncation named", Duration.ofMinutes(2),
                        () -> archived.count() >= 250 && !logs.containing(named).isEmpty());
            } finally {
                Jobs.cancel(again);
            }
            assertThat(logs.containing(named))
                    .anyMatch(l -> l.contains("the archived offsets 100..199 (the last of leader epoch 0)") && l.contains("offsets 100..199 since are not archived"));
        }
        kafka.restart(LEADER);
        kafka.awaitFullyReplicated(IN_SYNC);
        kept.addAll(writtenSince.subList(100, 150));
        assertThat(byOffset(ArchiveAssertions.archived(config.sinkPath(), PayloadFormats.of(config))))
                .as("the archive: its records of offsets 100..199 kept, then 200..249").isEqualTo(kept);
        Cli.Result deep = Cli.run(config, "audit", "--deep");
        assertThat(deep.out()).as("what the job could not tell by itself: which records differ")
                .contains("Content differs from Kafka, " + partition + ": 100 archived records");
    }

    @Test
    void aPartitionOfflineAtTheStartAndLaterForManyCheckpointIntervalsIsNamedAndWaitedForWhileTheOthersAreArchived() throws Exception {
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
            kafka.kill(alone); // offline before the job starts
            Await.until("partition 0 without a leader", IN_SYNC, () -> leaderOrNone(offline) < 0);
            org.apache.flink.configuration.Configuration fileSystems = new org.apache.flink.configuration.Configuration();
            SharedStack.get().s3().flinkSettings().forEach(fileSystems::setString);
            new io.archiver.job.Preflight(Duration.ofSeconds(30), fileSystems).check(config); // what a job's start runs first
            JobClient job = JobLauncher.environment(config).executeAsync("offline " + topic);
            try {
                assertThat(logs.containing("Kafka serves no leader for ")).as("the pre-flight names the partition")
                        .anyMatch(l -> l.contains(offline.toString()) && l.contains("archived once Kafka serves them"));
                // the job starts without partition 0's leader (kafka.start=earliest asks Kafka nothing) and archives the others
                Jobs.awaitWhileRunning(job, "the other partitions' 200 records archived", IN_SYNC, () -> archived.count() >= 200);
                kafka.restart(alone);
                Jobs.awaitWhileRunning(job, "300 records archived, partition 0 once served", IN_SYNC, () -> archived.count() >= 300);
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
        ConsumerGroups.commit(kafka.bootstrapServers(), group, before);
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
            coordinator = groupCoordinator(group);
            long killed = System.nanoTime();
            kafka.kill(coordinator);
            ConsumerGroups.commit(kafka.bootstrapServers(), group, after); // the group's consumer finds its new coordinator
            Jobs.awaitWhileRunning(job, "the group's new offsets captured from its new coordinator", IN_SYNC,
                    () -> capturedOffsets(captured, group).equals(after));
            log("broker %d, the group's coordinator, killed: its new offsets captured %d ms after", killed, coordinator);
        } finally {
            Jobs.cancel(job);
        }
        assertThat(groupCoordinator(group)).as("the group's coordinator moved").isNotEqualTo(coordinator);
        ArchiveAssertions.assertExactlyOnce(config.sinkPath(), PayloadFormats.of(config),
                KafkaTopicReader.readCommitted(kafka.bootstrapServers(), topic, produced.size()));
    }

    private static Map<TopicPartition, Long> capturedOffsets(io.archiver.capture.CaptureStore captured, String group) throws Exception {
        return captured.groupOffsets(group, null).map(io.archiver.capture.GroupOffsets::offsets).orElse(Map.of());
    }

    /** A new topic of one partition on {@link #LEADER} and {@link #FOLLOWER} that allows an unclean election, led by {@link #LEADER}. */
    private static TopicPartition uncleanTopic(String name) throws Exception {
        TopicPartition partition = new TopicPartition(SharedStack.uniqueName(name), 0);
        kafka.admin().createTopics(List.of(new NewTopic(partition.topic(), Map.of(0, List.of(LEADER, FOLLOWER)))
                .configs(Map.of("min.insync.replicas", "1", "unclean.leader.election.enable", "true")))).all().get(30, TimeUnit.SECONDS);
        Await.until(partition + " led by broker " + LEADER, IN_SYNC, () -> leaderOrNone(partition) == LEADER);
        return partition;
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
