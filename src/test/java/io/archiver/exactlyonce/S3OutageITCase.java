package io.archiver.exactlyonce;

import io.archiver.testutils.FaultScenario;
import io.archiver.testutils.LayoutScenarios;
import io.archiver.testutils.S3Faults;
import io.archiver.testutils.SharedStack;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Isolated;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fault 4: the S3 server answers 503 and then 500 to every request for a while, then the server is stopped
 * mid-upload and started again, under a job of each layout. Each recovers by itself (failing over as often as it must).
 */
@ExtendWith(SharedStack.class)
@Isolated
class S3OutageITCase {

    private final S3Faults faults = SharedStack.get().s3Faults();

    @Test
    void errorAnswersAndAServerRestartLoseAndDuplicateNothing() throws Exception {
        int before = faults.injectedFaults();
        try (LayoutScenarios both = LayoutScenarios.start(layout -> FaultScenario.start(
                "s3-outage-" + layout.configName(), 20_000, 2_500, Map.of("parallelism", "2", "sink.layout", layout.configName())))) {
            both.awaitArchived(2_000);
            faults.outage(503, Duration.ofSeconds(3));
            awaitOutageOver();
            faults.outage(500, Duration.ofSeconds(2));
            awaitOutageOver();
            both.awaitArchived(6_000);
            SharedStack.get().s3().stop();
            Thread.sleep(3_000); // the fault itself: the server stays down for 3 s
            SharedStack.get().s3().startAgain();
            both.finish();
        }
        assertThat(faults.injectedFaults()).as("error answers injected").isGreaterThan(before);
    }

    private void awaitOutageOver() throws Exception {
        io.archiver.testutils.Await.until("outage over", Duration.ofSeconds(30), () -> !faults.inOutage());
    }
}
