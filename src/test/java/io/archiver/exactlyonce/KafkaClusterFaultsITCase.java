package io.archiver.exactlyonce;

import io.archiver.config.SinkLayout;
import io.archiver.local.KafkaProcessCluster;
import io.archiver.testutils.FaultScenario;
import io.archiver.testutils.LongRunning;
import io.archiver.testutils.SharedMiniCluster;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.archiver.config.ArchiverConfig;
import io.archiver.job.JobLauncher;
import io.archiver.record.ArchiveRecord;
import io.archiver.testutils.Await;
import io.archiver.testutils.Cli;
import io.archiver.testutils.KafkaTopicReader;
import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TestRecords;

import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
 * sync before the next. And a restore (the archive back into Kafka, in transactions) whose transaction coordinator is
 * killed with SIGKILL while it has a transaction open: the restore finishes by itself, the restored topic read_committed
 * equals the archive record for record, in order, and {@code restore --verify} agrees.
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
        Cli.Result restored = restore.get(4, TimeUnit.MINUTES);
        log("broker %d, the restore's transaction coordinator, killed: the restore ended %d ms after", killed, coordinator[0]);
        assertThat(restored.code()).as(restored.out()).isZero();
        kafka.restart(coordinator[0]);
        kafka.awaitFullyReplicated(IN_SYNC);

        assertThat(TestRecords.byPartition(KafkaTopicReader.readCommitted(kafka.bootstrapServers(), target, records.size())))
                .as("the restored topic, read_committed").isEqualTo(TestRecords.byPartition(records));
        Cli.Result verified = Cli.run(restoring, "restore", "--topics", topic, "--rename", topic + "=" + target, "--verify");
        assertThat(verified.code()).as(verified.out()).isZero();
    }

    /** The broker coordinating a transaction now open on the cluster (the restore's: no other writes then); -1 for none. */
    private static int openTransactionCoordinator() throws Exception {
        List<String> open = kafka.admin().listTransactions(new ListTransactionsOptions().filterStates(List.of(TransactionState.ONGOING)))
                .all().get(10, TimeUnit.SECONDS).stream().map(TransactionListing::transactionalId).toList();
        return open.isEmpty() ? -1
                : kafka.admin().describeTransactions(open).all().get(10, TimeUnit.SECONDS).values().iterator().next().coordinatorId();
    }

    /** A topic of the cluster with a producer of plain records and transactions (some aborted), archived by a job of {@code layout}. */
    private static FaultScenario scenario(String name, SinkLayout layout, int records, int perSecond) throws Exception {
        return FaultScenario.startOn(kafka, name, records, perSecond, Map.of("parallelism", "2", "sink.layout", layout.configName()));
    }

    private static void log(String format, long since, int broker) {
        System.err.printf("KafkaClusterFaultsITCase: " + format + "%n", broker, java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - since));
    }
}
