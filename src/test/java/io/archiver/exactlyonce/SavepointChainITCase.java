package io.archiver.exactlyonce;

import io.archiver.config.SinkLayout;
import io.archiver.testutils.FaultScenario;
import io.archiver.testutils.LongRunning;
import io.archiver.testutils.SharedMiniCluster;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.Map;

/**
 * Fault 3: stop-with-savepoint and resume, twice, with the parallelism going 1 → 2 → 1, while records arrive; and
 * the layout changed at each restore.
 */
@SharedMiniCluster
@LongRunning(seconds = 54)
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

    /**
     * The layout of an archive may change: restored from a retained checkpoint whose commit is still pending
     * (files of the other layout), from a savepoint, and started without state, each time with the other layout.
     */
    @ParameterizedTest
    @EnumSource(SinkLayout.class)
    void layoutChangedAtEachRestoreAndStartWithoutStateKeepsExactlyOnce(SinkLayout first) throws Exception {
        SinkLayout other = first == SinkLayout.PER_PARTITION ? SinkLayout.PER_TOPIC : SinkLayout.PER_PARTITION;
        try (FaultScenario s = FaultScenario.start("layout-change", 20_000, 4_000, Map.of("parallelism", "2", "sink.layout", first.configName()))) {
            s.awaitArchived(3_000);
            s.cancel();
            s.resume(s.latestRetainedCheckpoint(), Map.of("sink.layout", other.configName()));
            s.awaitArchived(7_000);
            s.resume(s.stopWithSavepoint(), Map.of("sink.layout", first.configName()));
            s.awaitArchived(11_000);
            s.cancel();
            s.restartWithoutState(Map.of("sink.layout", other.configName()));
            s.finish();
        }
    }
}
