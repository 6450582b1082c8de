package io.archiver.position;

import io.archiver.config.SinkLayout;
import io.archiver.job.JobLauncher;
import io.archiver.testutils.FaultScenario;
import io.archiver.testutils.SharedStack;

import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Two jobs on one archive: the second fails at start while the first renews; a job whose lease was taken is fenced. */
@ExtendWith(SharedStack.class)
class FencingITCase {

    @Test
    void secondJobOnTheSameArchiveFailsFastWhileTheFirstRuns() throws Exception {
        try (FaultScenario s = FaultScenario.start("fence-second", 12_000, 3_000, Map.of("parallelism", "2"))) {
            s.awaitArchived(2_000);
            long start = System.nanoTime();
            assertThatThrownBy(() -> JobLauncher.environment(s.config().with(Map.of("job.name", "second archiver"))))
                    .isInstanceOf(ArchiveLease.LeaseException.class)
                    .hasMessageContaining("Another archiver job writes to " + s.config().sinkPath())
                    .hasMessageContaining("Stop the other job first");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time to refuse the second job").isLessThan(Duration.ofSeconds(10));
            s.finish();
        }
    }

    @ParameterizedTest
    @EnumSource(SinkLayout.class)
    void jobWhoseLeaseWasTakenOverIsFencedAndTheNewHolderArchivesTheRestOnce(SinkLayout layout) throws Exception {
        Map<String, String> settings = Map.of("parallelism", "2", "restart.attempts", "2", "sink.layout", layout.configName());
        try (FaultScenario s = FaultScenario.start("fence-takeover", 12_000, 3_000, settings)) {
            s.awaitArchived(2_000);
            // the intruder renews its lease as a job that took over does: a renewal of the fenced job racing with
            // a single write (the lease is a plain object, not a conditional write) must not undo the take-over
            Throwable failure;
            ScheduledExecutorService intruder = Executors.newSingleThreadScheduledExecutor();
            try {
                writeLease(s.config().sinkPath(), "intruder-run");
                intruder.scheduleWithFixedDelay(() -> {
                    try {
                        writeLease(s.config().sinkPath(), "intruder-run");
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, 250, 250, TimeUnit.MILLISECONDS);
                failure = s.awaitFailure(Duration.ofMinutes(1));
            } finally {
                intruder.shutdown(); // a write under way ends before the restart below looks at the lease
                assertThat(intruder.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
            }
            assertThat(ExceptionUtils.findThrowableWithMessage(failure, "was fenced off the archive"))
                    .as("failure of the fenced job: %s", ExceptionUtils.stringifyException(failure))
                    .isPresent();

            s.restartWithoutState(Map.of());
            s.finish();
        }
    }

    /** Writes the lease of another run, as a job taking over would. */
    private static void writeLease(String root, String owner) throws Exception {
        Path lease = new Path(new Path(root), "_archiver/lease.json");
        String json = "{\"format\":1,\"owner\":\"" + owner + "\",\"job\":\"intruder\",\"host\":\"test\",\"renewed_at\":"
                + System.currentTimeMillis() + ",\"timeout_ms\":3000}";
        try (FSDataOutputStream out = lease.getFileSystem().create(lease, FileSystem.WriteMode.OVERWRITE)) {
            out.write(json.getBytes(StandardCharsets.UTF_8));
        }
    }
}
