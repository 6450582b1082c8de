package io.archiver.exactlyonce;

import io.archiver.config.SinkLayout;
import io.archiver.local.KafkaProcessCluster;
import io.archiver.testutils.FaultScenario;
import io.archiver.testutils.LongRunning;
import io.archiver.testutils.SharedMiniCluster;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * Faults of a production-shaped Kafka cluster: three brokers and a KRaft controller, each a JVM of its own, topics
 * replicated three times with {@code min.insync.replicas} 2 (the consumer offsets and transaction state too), while a
 * producer writes plain records and transactions, some aborted, and the job archives. Each fault, in both layouts,
 * against the read_committed truth, both ways: the leader of archived partitions killed with SIGKILL mid-stream (the
 * job archives on from the new leaders while it is down, then it comes back and catches up); a rolling restart, every
 * broker in turn shut down (controlled: leadership moved first) and started again, waiting for its replicas to be in
 * sync before the next.
 */
@SharedMiniCluster
@LongRunning
class KafkaClusterFaultsITCase {

    private static final Duration IN_SYNC = Duration.ofMinutes(1);

    @TempDir
    static Path nodes;
    private static KafkaProcessCluster kafka;

    @BeforeAll
    static void startCluster() throws Exception {
        kafka = KafkaProcessCluster.start(nodes, 3);
    }

    @AfterAll
    static void stopCluster() {
        if (kafka != null) {
            kafka.close();
        }
    }

    @ParameterizedTest
    @EnumSource(SinkLayout.class)
    void killNineOfTheLeaderOfArchivedPartitionsMidStreamLosesAndDoublesNothing(SinkLayout layout) throws Exception {
        try (FaultScenario s = FaultScenario.startOn(kafka, "leader-kill", 16_000, 2_000, Map.of("parallelism", "2", "sink.layout", layout.configName()))) {
            s.awaitArchived(3_000);
            int leader = kafka.leaderOf(s.topic(), 0);
            kafka.kill(leader);
            // archived on from the new leaders while the killed broker is down
            s.awaitArchived(7_000);
            kafka.restart(leader);
            kafka.awaitFullyReplicated(IN_SYNC);
            s.finish();
        }
    }

    @ParameterizedTest
    @EnumSource(SinkLayout.class)
    void aRollingRestartOfEveryBrokerWhileTheJobArchivesLosesAndDoublesNothing(SinkLayout layout) throws Exception {
        try (FaultScenario s = FaultScenario.startOn(kafka, "rolling-restart", 36_000, 1_500, Map.of("parallelism", "2", "sink.layout", layout.configName()))) {
            s.awaitArchived(2_000);
            for (int broker : kafka.brokers()) {
                kafka.shutdown(broker);
                kafka.restart(broker);
                kafka.awaitFullyReplicated(IN_SYNC);
            }
            s.finish();
        }
    }
}
