package io.archiver.exactlyonce;

import io.archiver.config.SinkLayout;
import io.archiver.testutils.FaultScenario;
import io.archiver.testutils.SharedStack;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.Map;

/** Fault 5: the Kafka broker is restarted mid-run, while the producer and the archiver are both active. */
@ExtendWith(SharedStack.class)
class KafkaRestartITCase {

    @ParameterizedTest
    @EnumSource(SinkLayout.class)
    void brokerRestartMidRunLosesAndDuplicatesNothing(SinkLayout layout) throws Exception {
        try (FaultScenario s = FaultScenario.start("kafka-restart", 20_000, 3_000, Map.of("parallelism", "2", "sink.layout", layout.configName()))) {
            s.awaitArchived(4_000);
            SharedStack.get().kafka().restartBroker();
            s.finish();
        }
    }
}
