package io.archiver.exactlyonce;

import io.archiver.testutils.FaultScenario;
import io.archiver.testutils.SharedStack;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.Map;

/** Fault 5: the Kafka broker is restarted mid-run, while the producer and the archiver are both active. */
@ExtendWith(SharedStack.class)
class KafkaRestartITCase {

    @Test
    void brokerRestartMidRunLosesAndDuplicatesNothing() throws Exception {
        try (FaultScenario s = FaultScenario.start("kafka-restart", 20_000, 3_000, Map.of("parallelism", "2"))) {
            s.awaitArchived(4_000);
            SharedStack.get().kafka().restartBroker();
            s.finish();
        }
    }
}
