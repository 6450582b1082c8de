package io.archiver.exactlyonce;

import io.archiver.config.SinkLayout;
import io.archiver.local.EmbeddedKafka;
import io.archiver.testutils.FaultScenario;
import io.archiver.testutils.LongRunning;
import io.archiver.testutils.SharedMiniCluster;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.Map;

/**
 * Fault 5: the Kafka broker is restarted mid-run, while the producer and the archiver are both active. The broker
 * is one of the class's own, so the classes running beside it keep theirs.
 */
@SharedMiniCluster
@LongRunning(seconds = 41)
class KafkaRestartITCase {

    private static EmbeddedKafka broker;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = EmbeddedKafka.start(null);
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (broker != null) {
            broker.close();
        }
    }

    @ParameterizedTest
    @EnumSource(SinkLayout.class)
    void brokerRestartMidRunLosesAndDuplicatesNothing(SinkLayout layout) throws Exception {
        try (FaultScenario s = FaultScenario.startOn(broker, "kafka-restart", 20_000, 3_000, Map.of("parallelism", "2", "sink.layout", layout.configName()))) {
            s.awaitArchived(4_000);
            broker.restartBroker();
            s.finish();
        }
    }
}
