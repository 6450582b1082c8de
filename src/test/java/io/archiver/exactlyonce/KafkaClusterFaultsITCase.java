package io.archiver.exactlyonce;

import io.archiver.config.SinkLayout;
import io.archiver.local.KafkaProcessCluster;
import io.archiver.testutils.FaultScenario;
import io.archiver.testutils.LongRunning;
import io.archiver.testutils.SharedMiniCluster;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * Faults of a production-shaped Kafka cluster: three brokers and a KRaft controller, each a JVM of its own, topics
 * replicated three times with {@code min.insync.replicas} 2 (the consumer offsets and transaction state too), while a
 * producer writes plain records and transactions, some aborted, and the job archives. Each fault hits two jobs at
 * once, one of each layout on a topic of its own, and each archive is checked against its topic's read_committed
 * truth, both ways: the leader of archived partitions killed with SIGKILL mid-stream (the
 * job archives on from the new leaders while it is down, then it comes back and catches up); a rolling restart, every
 * broker in turn shut down (controlled: leadership moved first) and started again, waiting for its replicas to be in
 * sync before the next.
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

    /** A topic of the cluster with a producer of plain records and transactions (some aborted), archived by a job of {@code layout}. */
    private static FaultScenario scenario(String name, SinkLayout layout, int records, int perSecond) throws Exception {
        return FaultScenario.startOn(kafka, name, records, perSecond, Map.of("parallelism", "2", "sink.layout", layout.configName()));
    }

    private static void log(String format, long since, int broker) {
        System.err.printf("KafkaClusterFaultsITCase: " + format + "%n", broker, java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - since));
    }
}
