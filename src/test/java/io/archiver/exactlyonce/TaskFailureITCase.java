package io.archiver.exactlyonce;

import io.archiver.config.SinkLayout;
import io.archiver.testutils.FaultScenario;
import io.archiver.testutils.SharedStack;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.Map;
import java.util.Random;

/** Fault 1: every TaskManager killed at several random points while records arrive; recovery from checkpoints. */
@ExtendWith(SharedStack.class)
@ResourceLock(SharedStack.TASK_MANAGERS_LOCK)
class TaskFailureITCase {

    @ParameterizedTest
    @EnumSource(SinkLayout.class)
    void repeatedTaskFailuresAtRandomPointsLoseAndDuplicateNothing(SinkLayout layout) throws Exception {
        long seed = Long.getLong("faults.seed", System.nanoTime());
        System.out.println("TaskFailureITCase seed " + seed + " (rerun with -Dfaults.seed=" + seed + ")");
        Random random = new Random(seed);
        try (FaultScenario s = FaultScenario.start("task-failures", 24_000, 3_000, Map.of("parallelism", "2", "sink.layout", layout.configName()))) {
            for (int failure = 0; failure < 3; failure++) {
                s.awaitArchived(1 + random.nextInt(2_000) + failure * 4_000L);
                SharedStack.get().killAndReplaceTaskManagers();
            }
            s.finish();
        }
    }
}
