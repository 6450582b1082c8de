package io.archiver.exactlyonce;

import io.archiver.config.SinkLayout;
import io.archiver.testutils.FaultScenario;
import io.archiver.testutils.S3Faults;
import io.archiver.testutils.SharedMiniCluster;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fault 6: failures in the commit phase itself, after a checkpoint completed: CompleteMultipartUpload
 * refused, and CompleteMultipartUpload carried out with its answer lost (the file is visible, the job
 * believes the commit failed). Restoring from that checkpoint re-commits idempotently.
 */
@SharedMiniCluster
class CommitFailureITCase {

    @ParameterizedTest
    @EnumSource(SinkLayout.class)
    void refusedAndLostCommitAnswersAreRecommittedExactlyOnce(SinkLayout layout) throws Exception {
        try (FaultScenario s = FaultScenario.start("commit-failure", 20_000, 3_000, Map.of("parallelism", "2", "sink.layout", layout.configName()))) {
            S3Faults faults = s.s3Faults();
            s.awaitArchived(3_000);
            faults.loseNextCompleteAnswers(3);
            s.awaitArchived(9_000);
            faults.refuseNextCompletes(3);
            s.finish();
            assertThat(faults.injectedFaults()).as("commit faults injected").isGreaterThanOrEqualTo(6);
        }
    }
}
