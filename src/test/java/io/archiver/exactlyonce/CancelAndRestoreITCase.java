package io.archiver.exactlyonce;

import io.archiver.config.SinkLayout;
import io.archiver.testutils.FaultScenario;
import io.archiver.testutils.SharedMiniCluster;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.Map;

/** Fault 2: the job is cancelled mid-stream, then a new job starts from the retained checkpoint. */
@SharedMiniCluster
class CancelAndRestoreITCase {

    @ParameterizedTest
    @EnumSource(SinkLayout.class)
    void newJobFromTheRetainedCheckpointContinuesExactlyOnce(SinkLayout layout) throws Exception {
        try (FaultScenario s = FaultScenario.start("cancel-restore", 20_000, 4_000, Map.of("parallelism", "2", "sink.layout", layout.configName()))) {
            s.awaitArchived(5_000);
            s.cancel();
            String checkpoint = s.latestRetainedCheckpoint();
            s.resume(checkpoint, 2);
            s.awaitArchived(12_000);
            s.cancel();
            s.resume(s.latestRetainedCheckpoint(), 1);
            s.finish();
        }
    }
}
