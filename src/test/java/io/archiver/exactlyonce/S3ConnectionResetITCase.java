package io.archiver.exactlyonce;

import io.archiver.config.SinkLayout;
import io.archiver.testutils.Await;
import io.archiver.testutils.ConnectionResettingProxy;
import io.archiver.testutils.FaultScenario;
import io.archiver.testutils.LayoutScenarios;
import io.archiver.testutils.LongRunning;
import io.archiver.testutils.SharedMiniCluster;
import io.archiver.testutils.SharedStack;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Connections to S3 reset in the middle of part uploads (a TCP reset after the first 100 bytes of the part's body, no
 * answer), while two jobs archive, one per layout, into a bucket reached through {@link ConnectionResettingProxy}:
 * each archive against its topic's read_committed truth, both ways.
 */
@SharedMiniCluster
@LongRunning(seconds = 33)
class S3ConnectionResetITCase {

    private static final int RESETS = 12;

    @Test
    void connectionsResetInTheMiddleOfPartUploadsLoseAndDoubleNothing() throws Exception {
        ConnectionResettingProxy proxy = SharedStack.get().connectionResets();
        try (LayoutScenarios both = LayoutScenarios.start(S3ConnectionResetITCase::scenario)) {
            both.awaitArchived(1_000);
            int before = proxy.resets();
            proxy.resetNextPartUploads(RESETS, 100);
            Await.until(RESETS + " part uploads cut by a reset", Duration.ofMinutes(1), () -> proxy.resets() >= before + RESETS);
            for (FaultScenario s : both) {
                s.finish();
                System.err.printf("S3ConnectionResetITCase: %s: %s%n", s.topic(), s.lastFailure().map(f -> "failed over: "
                        + f.cause().lines().findFirst().orElse("")).orElse("no failover"));
            }
            assertThat(proxy.resets() - before).isGreaterThanOrEqualTo(RESETS);
        } finally {
            proxy.heal();
        }
    }

    /** Transactional input with aborts, 8,000 records at 400 a second, archived into the bucket behind the proxy. */
    private static FaultScenario scenario(SinkLayout layout) throws Exception {
        return FaultScenario.startInBucket(SharedStack.RESETS_BUCKET, "resets-" + layout.configName(), 8_000, 400,
                Map.of("parallelism", "2", "sink.layout", layout.configName()));
    }
}
