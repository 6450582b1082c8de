package io.archiver.exactlyonce;

import io.archiver.config.SinkLayout;
import io.archiver.testutils.Await;
import io.archiver.testutils.FaultScenario;
import io.archiver.testutils.LayoutScenarios;
import io.archiver.testutils.LongRunning;
import io.archiver.testutils.S3Faults;
import io.archiver.testutils.SharedMiniCluster;
import io.archiver.testutils.SharedStack;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * S3 that throttles and stalls, for the objects of the test's archives and checkpoints (faults armed per name, in a bucket
 * of their own, so that the classes beside it meet none and wait for no connection the stalled requests hold): bursts of 503 SlowDown shorter than the S3 client's retries, ridden out without a
 * failover; SlowDown for longer than the retries last (until both jobs failed over), which fails checkpoints and then the
 * job, which resumes from the last completed one; every request served 2 s late for a minute. Each fault hits two jobs at once, one per layout,
 * and each archive is checked against its topic's read_committed truth, both ways.
 */
@SharedMiniCluster
@LongRunning(seconds = 190)
class S3ThrottlingITCase {

    @Test
    void burstsOfSlowDownWithinTheRetriesAreRiddenOutWithoutAFailover() throws Exception {
        try (LayoutScenarios both = LayoutScenarios.start(layout -> scenario("slowdown-bursts", layout))) {
            armOnce(both, 1_000, f -> f.slowDownBursts(Duration.ofSeconds(2), Duration.ofSeconds(3), Duration.ofSeconds(20)));
            for (FaultScenario s : both) {
                s.finish();
                assertThat(s.s3Faults().injectedFaults()).as("SlowDown answers").isPositive();
                assertThat(s.lastFailure()).as("a failover of the job on " + s.topic()).isEmpty();
                // a checkpoint may fail in a burst (one did once in a full run): the job goes on without a failover
                System.err.printf("S3ThrottlingITCase: %s rode out the bursts, %d checkpoints failed%n", s.topic(),
                        s.checkpointStats().getCounts().getNumberOfFailedCheckpoints());
            }
        }
    }

    @Test
    void slowDownOutlastingTheRetriesFailsTheCheckpointAndTheJobResumesExactlyOnce() throws Exception {
        try (LayoutScenarios both = LayoutScenarios.start(layout -> scenario("slowdown-long", layout))) {
            both.awaitArchived(1_000);
            long armed = System.currentTimeMillis();
            both.forEach(s -> s.s3Faults().slowDownBursts(Duration.ofMinutes(3), Duration.ZERO, Duration.ofMinutes(3)));
            // SlowDown until both jobs gave up on it (about 50 s here), then S3 serves again
            Await.until("both jobs failed over", Duration.ofMinutes(3), () -> both.stream().allMatch(s -> failedOver(s)));
            both.forEach(s -> s.s3Faults().heal());
            for (FaultScenario s : both) {
                s.finish();
                assertThat(s.lastFailure()).as("the job on " + s.topic() + " failed over once the retries ran out").isPresent();
                long after = s.lastFailure().get().timestamp() - armed;
                System.err.printf("S3ThrottlingITCase: %s failed over %d ms into the SlowDown, %d checkpoints failed: %s%n", s.topic(), after,
                        s.checkpointStats().getCounts().getNumberOfFailedCheckpoints(), s.lastFailure().get().cause().lines().findFirst().orElse(""));
                assertThat(after).as("the SlowDown ridden out for a while first (ms)").isGreaterThan(10_000);
            }
        }
    }

    @Test
    void everyRequestServedTwoSecondsLateForAMinuteLosesAndDoublesNothing() throws Exception {
        try (LayoutScenarios both = LayoutScenarios.start(layout -> scenario("stall", layout))) {
            armOnce(both, 1_000, f -> f.stall(Duration.ofSeconds(2), Duration.ofMinutes(1)));
            for (FaultScenario s : both) {
                s.finish();
                assertThat(s.s3Faults().stalledRequests()).as("requests served late").isPositive();
                assertThat(s.checkpointStats().getSummaryStats().getEndToEndDurationStats().getMaximum())
                        .as("the longest checkpoint (ms): its requests were 2 s late").isGreaterThan(2_000);
            }
        }
    }

    private static boolean failedOver(FaultScenario s) {
        try {
            return s.lastFailure().isPresent();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Once each job archived {@code archived} records, arms the fault for both, waits until it is over and returns when it began. */
    private static long armOnce(LayoutScenarios scenarios, int archived, Consumer<S3Faults> fault) throws Exception {
        scenarios.awaitArchived(archived);
        long armed = System.currentTimeMillis();
        scenarios.forEach(s -> fault.accept(s.s3Faults()));
        Await.until("the S3 fault over", Duration.ofMinutes(2), () -> scenarios.stream().noneMatch(s -> s.s3Faults().throttlingOrStalling()));
        return armed;
    }

    /** A topic with plain records and transactions (some aborted), 8,000 records at 400 a second, archived by a job of {@code layout}, in the slow bucket. */
    private static FaultScenario scenario(String name, SinkLayout layout) throws Exception {
        return FaultScenario.startInBucket(SharedStack.SLOW_BUCKET, name, 8_000, 400, Map.of("parallelism", "2", "sink.layout", layout.configName()));
    }
}
