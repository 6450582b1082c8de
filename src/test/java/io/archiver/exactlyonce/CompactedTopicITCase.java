package io.archiver.exactlyonce;

import io.archiver.config.SinkLayout;
import io.archiver.testutils.FaultScenario;
import io.archiver.testutils.KillsTaskManagers;
import io.archiver.testutils.LongRunning;
import io.archiver.testutils.SharedStack;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.Map;

/**
 * A compacted topic with compaction's holes and transactions (some aborted) arriving: TaskManagers killed,
 * the job cancelled and started again without state; the archive equals what a read_committed reader reads.
 */
@KillsTaskManagers
@LongRunning(seconds = 37)
class CompactedTopicITCase {

    @ParameterizedTest
    @EnumSource(SinkLayout.class)
    void compactedTopicIsArchivedExactlyOnceThroughFailuresAndAStartWithoutState(SinkLayout layout) throws Exception {
        try (FaultScenario s = FaultScenario.startCompacted("compacted", 12_000, 2_000, Map.of("parallelism", "2", "sink.layout", layout.configName()))) {
            s.awaitArchived(4_000);
            SharedStack.get().killAndReplaceTaskManagers();
            s.awaitArchived(8_000);
            s.cancel();
            s.restartWithoutState(Map.of());
            s.finish();
        }
    }
}
