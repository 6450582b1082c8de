package io.archiver.fencing;

import io.archiver.archive.ArchiveRoot;
import io.archiver.config.SinkLayout;
import io.archiver.job.JobLauncher;
import io.archiver.testutils.FaultScenario;
import io.archiver.testutils.S3Faults;
import io.archiver.testutils.LongRunning;
import io.archiver.testutils.SharedMiniCluster;
import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TableContents;

import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.Test;
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

/**
 * Two jobs on one archive: the second fails at start while the first renews; a job whose lease was taken is fenced;
 * on S3 a lease written since it was read is not overwritten.
 */
@SharedMiniCluster
@LongRunning(seconds = 31)
class FencingITCase {

    @org.junit.jupiter.api.io.TempDir
    static java.nio.file.Path catalogs;

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

    /**
     * In application mode with HA a JobManager that takes over runs the job's {@code main()} again, under the job's
     * fixed id, while it recovers the running job: that launch keeps the job's lease at once (it neither waits for
     * it nor takes it), the job goes on renewing it and archives exactly once; a launch under another job id is
     * refused as before. (Here the second launch runs beside the job on the MiniCluster; no application cluster with
     * HA is started.)
     */
    @Test
    void aLaunchOfTheSameJobAgainAsAJobManagerFailoverDoesKeepsItsLease() throws Exception {
        String jobId = new org.apache.flink.api.common.JobID().toHexString();
        Map<String, String> fixedId = Map.of("parallelism", "2", "flink.$internal.pipeline.job-id", jobId);
        try (FaultScenario s = FaultScenario.start("fence-failover", 12_000, 3_000, fixedId)) {
            s.awaitArchived(2_000);
            java.util.List<String> notices = new java.util.ArrayList<>();
            long start = System.nanoTime();
            JobLauncher.Launch again = JobLauncher.launch(s.config(), notices::add);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time to launch the same job again").isLessThan(Duration.ofSeconds(10));
            assertThat(notices).as("the launch waited for nothing").isEmpty();
            again.lease().checkOwner();

            assertThatThrownBy(() -> JobLauncher.environment(s.config().with(Map.of(
                            "job.name", "another archiver", "flink.$internal.pipeline.job-id", new org.apache.flink.api.common.JobID().toHexString()))))
                    .isInstanceOf(ArchiveLease.LeaseException.class)
                    .hasMessageContaining("Another archiver job writes to " + s.config().sinkPath());
            s.finish();
        }
    }

    @ParameterizedTest
    @EnumSource(SinkLayout.class)
    void jobWhoseLeaseWasTakenOverIsFencedAndTheNewHolderArchivesTheRestOnce(SinkLayout layout) throws Exception {
        // with the topic's Iceberg table: the fenced job's table committer checks the lease too
        Map<String, String> settings = Map.of("parallelism", "2", "restart.attempts", "2", "sink.layout", layout.configName(),
                "table.format", "iceberg", "table.catalog.uri", "jdbc:sqlite:" + catalogs.resolve("fence-" + layout.configName() + ".db"));
        try (FaultScenario s = FaultScenario.start("fence-takeover", 12_000, 3_000, settings)) {
            s.awaitArchived(2_000);
            // the intruder renews its lease with plain writes, as often as a job that took over would: the fenced
            // job must stop at its next renewal or commit
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
            TableContents.assertEqualsTruth(s.config(), s.topic(), TableContents.drainWithTable(s));
        }
    }

    /**
     * On S3 a lease written since it was read is not overwritten: of two writers that read one version, the second
     * to write is refused (If-Match on the ETag), sees the first one's lease, and a write to a deleted lease is
     * refused too. (S3Proxy checks the condition before it writes, not atomically with it, so two writes at the
     * very same moment can both pass there; AWS S3 makes them atomic. The concurrent races run in
     * ArchiveLeaseTest on a local file.)
     */
    @Test
    void onS3ALeaseWrittenSinceItWasReadIsNotOverwritten() throws Exception {
        String root = "s3://" + SharedStack.BUCKET + "/" + SharedStack.uniqueName("lease-cas");
        writeLease(root, "crashed-run", System.currentTimeMillis() - 3_600_000);
        Path path = new Path(new Path(root), "_archiver/lease.json");
        try (LeaseObject first = LeaseObject.at(path); LeaseObject second = LeaseObject.at(path)) {
            assertThat(first).isInstanceOf(S3LeaseObject.class);
            String version = first.read().orElseThrow().version();
            assertThat(second.read().orElseThrow().version()).isEqualTo(version);
            assertThat(first.replace("{\"owner\":\"first\"}".getBytes(StandardCharsets.UTF_8), version)).isTrue();
            assertThat(second.replace("{\"owner\":\"second\"}".getBytes(StandardCharsets.UTF_8), version)).isFalse();
            // refused with a body larger than the socket's buffers: the server may answer before it reads the body
            // and close the connection, so that the client sees no answer; the object settles it
            byte[] large = ("{\"owner\":\"second\",\"pad\":\"" + "x".repeat(4 << 20) + "\"}").getBytes(StandardCharsets.UTF_8);
            assertThat(second.replace(large, version)).isFalse();
            assertThat(new String(second.read().orElseThrow().bytes(), StandardCharsets.UTF_8)).contains("first");
            String current = second.read().orElseThrow().version();
            first.delete();
            assertThat(second.replace("{\"owner\":\"second\"}".getBytes(StandardCharsets.UTF_8), current)).isFalse();
            assertThat(second.read()).isEmpty();
        }
        // and through the lease: a holder whose lease another run took over is fenced at its next renewal
        writeLease(root, "crashed-run", System.currentTimeMillis() - 3_600_000);
        ArchiveLease holder = new ArchiveLease(ArchiveRoot.of(root), "holder", "holder", Duration.ofMinutes(1));
        holder.acquire();
        ArchiveLease taker = new ArchiveLease(ArchiveRoot.of(root), "taker", "taker", Duration.ofMillis(1));
        Thread.sleep(2); // the holder's lease is older than the taker's timeout
        taker.acquire();
        assertThatThrownBy(holder::renewIfDue).hasMessageContaining("was fenced off");
        taker.checkOwner();
        holder.close();
        taker.close();
    }

    @Test
    void onS3AConditionalWriteCarriedOutWhoseAnswerWasLostIsTheWritersThoughItsRetryIsRefused() throws Exception {
        String name = SharedStack.uniqueName("lease-lost-answer");
        String root = "s3://" + SharedStack.BUCKET + "/" + name;
        writeLease(root, "crashed-run", System.currentTimeMillis() - 3_600_000);
        S3Faults faults = SharedStack.get().s3Faults(name);
        try (LeaseObject lease = LeaseObject.at(new Path(new Path(root), "_archiver/lease.json"))) {
            String version = lease.read().orElseThrow().version();
            faults.loseNextPutAnswers(1); // written, answered 500: the SDK retries, and S3 refuses the stale If-Match
            assertThat(lease.replace("{\"owner\":\"taker\"}".getBytes(StandardCharsets.UTF_8), version)).isTrue();
            assertThat(faults.injectedFaults()).as("answers lost").isEqualTo(1);
            assertThat(new String(lease.read().orElseThrow().bytes(), StandardCharsets.UTF_8)).contains("taker");
        } finally {
            SharedStack.get().healS3Faults(name);
        }
    }

    /** Writes the lease of another run, as a job taking over would. */
    private static void writeLease(String root, String owner) throws Exception {
        writeLease(root, owner, System.currentTimeMillis());
    }

    /** Writes the lease of another run renewed at {@code renewedAt}, with a plain write. */
    private static void writeLease(String root, String owner, long renewedAt) throws Exception {
        Path lease = new Path(new Path(root), "_archiver/lease.json");
        String json = "{\"format\":1,\"owner\":\"" + owner + "\",\"job\":\"intruder\",\"host\":\"test\",\"renewed_at\":"
                + renewedAt + ",\"timeout_ms\":3000}";
        try (FSDataOutputStream out = lease.getFileSystem().create(lease, FileSystem.WriteMode.OVERWRITE)) {
            out.write(json.getBytes(StandardCharsets.UTF_8));
        }
    }
}
