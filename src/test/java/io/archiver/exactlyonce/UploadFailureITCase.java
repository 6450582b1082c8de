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
 * Fault 7: uploads of part files refused while the sink does them in the background (the multipart upload
 * started when a file opens, the last part uploaded when it closes at the barrier). The refusal must fail
 * the attempt, not be lost on a pool thread: the job restores from its last checkpoint and every record is
 * archived exactly once.
 */
@SharedMiniCluster
class UploadFailureITCase {

    @ParameterizedTest
    @EnumSource(SinkLayout.class)
    void refusedUploadStartsAndPartsFailTheAttemptAndLoseNothing(SinkLayout layout) throws Exception {
        try (FaultScenario s = FaultScenario.start("upload-failure", 20_000, 3_000, Map.of("parallelism", "2", "sink.layout", layout.configName()))) {
            S3Faults faults = s.s3Faults();
            // armed while the first records arrive: armed on a count of archived records instead, a job whose first
            // checkpoint came late (a cold JVM) could hold every remaining record in files whose uploads had begun
            faults.refuseNextArchivePartUploads(3);
            faults.refuseNextArchiveUploadStarts(3);
            s.finish();
            assertThat(s.jobsStarted()).isEqualTo(1);
            assertThat(faults.injectedFaults()).as("upload faults injected").isEqualTo(6);
        }
    }
}
