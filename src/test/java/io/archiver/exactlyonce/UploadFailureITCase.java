package io.archiver.exactlyonce;

import io.archiver.config.SinkLayout;
import io.archiver.testutils.FaultInjectingBlobStore;
import io.archiver.testutils.FaultScenario;
import io.archiver.testutils.SharedMiniCluster;
import io.archiver.testutils.SharedStack;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fault 7: uploads of part files refused while the sink does them in the background (the multipart upload
 * started when a file opens, the last part uploaded when it closes at the barrier). The refusal must fail
 * the attempt, not be lost on a pool thread: the job restores from its last checkpoint and every record is
 * archived exactly once.
 */
@SharedMiniCluster
@ResourceLock(SharedStack.S3_FAULTS_LOCK)
class UploadFailureITCase {

    private final FaultInjectingBlobStore faults = SharedStack.get().s3Faults();

    @ParameterizedTest
    @EnumSource(SinkLayout.class)
    void refusedUploadStartsAndPartsFailTheAttemptAndLoseNothing(SinkLayout layout) throws Exception {
        int before = faults.injectedFaults();
        try (FaultScenario s = FaultScenario.start("upload-failure", 20_000, 3_000, Map.of("parallelism", "2", "sink.layout", layout.configName()))) {
            faults.limitTo(s.topic());
            s.awaitArchived(3_000);
            faults.refuseNextArchivePartUploads(3);
            s.awaitArchived(9_000);
            faults.refuseNextArchiveUploadStarts(3);
            s.finish();
            assertThat(s.jobsStarted()).isEqualTo(1);
        }
        assertThat(faults.injectedFaults() - before).as("upload faults injected").isEqualTo(6);
    }
}
