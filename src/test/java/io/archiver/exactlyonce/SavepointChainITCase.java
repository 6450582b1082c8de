package io.archiver.exactlyonce;

import io.archiver.config.SinkLayout;
import io.archiver.testutils.FaultScenario;
import io.archiver.testutils.SharedStack;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.Map;

/** Fault 3: stop-with-savepoint and resume, twice, with the parallelism going 1 → 2 → 1, while records arrive. */
@ExtendWith(SharedStack.class)
class SavepointChainITCase {

    @ParameterizedTest
    @EnumSource(SinkLayout.class)
    void stopWithSavepointAndRescaleKeepExactlyOnce(SinkLayout layout) throws Exception {
        try (FaultScenario s = FaultScenario.start("savepoint-chain", 20_000, 4_000, Map.of("parallelism", "1", "sink.layout", layout.configName()))) {
            s.awaitArchived(4_000);
            s.resume(s.stopWithSavepoint(), 2);
            s.awaitArchived(10_000);
            s.resume(s.stopWithSavepoint(), 1);
            s.finish();
        }
    }
}
