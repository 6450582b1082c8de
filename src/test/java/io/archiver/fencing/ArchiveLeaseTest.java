package io.archiver.fencing;

import io.archiver.archive.ArchiveRoot;
import org.apache.flink.core.fs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Runs racing for one lease on a local file, where each write is a compare-and-swap under a lock: never do two of
 * them hold it, and a renewal never undoes a take-over. (On S3 the same writes are requests conditional on the
 * ETag: FencingITCase.)
 */
class ArchiveLeaseTest {

    @TempDir
    java.nio.file.Path dir;

    /**
     * Two runs take over one expired lease at the same moment, 30 times: never do both hold it. The loser either lost
     * the conditional write (refused at once) or read the winner's fresh lease (and would wait for it: stopped here);
     * some rounds must be true races, both having read the expired lease before either wrote.
     */
    @Test
    void twoRunsTakingOverOneExpiredLeaseAtOnceNeverBothHoldIt() throws Exception {
        String root = dir.toUri().toString();
        int lostWrites = 0;
        for (int round = 0; round < 30; round++) {
            writeLease(root, "crashed-run", System.currentTimeMillis() - 3_600_000);
            ArchiveLease a = new ArchiveLease(ArchiveRoot.of(root), "run-a-" + round, "a", Duration.ofMinutes(1));
            ArchiveLease b = new ArchiveLease(ArchiveRoot.of(root), "run-b-" + round, "b", Duration.ofMinutes(1));
            List<Object> outcomes = race(() -> acquireWithoutWaiting(a), () -> acquireWithoutWaiting(b));
            assertThat(outcomes).as("round %d: %s", round, outcomes).containsOnlyOnce(HELD);
            ArchiveLease winner = outcomes.get(0) == HELD ? a : b;
            winner.checkOwner();
            Object loser = outcomes.get(0) == HELD ? outcomes.get(1) : outcomes.get(0);
            if (loser instanceof ArchiveLease.LeaseException e && e.getMessage().contains("at the same moment")) {
                lostWrites++;
            } else {
                assertThat(loser).as("round %d: the loser saw the winner's lease", round).isEqualTo(WOULD_WAIT);
            }
            a.close();
            b.close();
        }
        assertThat(lostWrites).as("rounds in which both read the expired lease and one lost the write").isPositive();
    }

    /**
     * A launch of the Flink job the lease names (a JobManager failover in application mode runs main() again under
     * the job's fixed id) runs under that run's lease: the holder's renewals and its own checks pass, nothing is
     * written. A launch naming another job, or none, finds no lease of its own.
     */
    @Test
    void aLaunchOfTheJobTheLeaseNamesKeepsThatRunsLease() throws Exception {
        String root = dir.toUri().toString();
        ArchiveLease first = new ArchiveLease(ArchiveRoot.of(root), "first-run", "archiver", Duration.ofMinutes(1)).forJob("job-j");
        first.acquire();
        ArchiveLease again = new ArchiveLease(ArchiveRoot.of(root), "second-launch", "archiver", Duration.ofMinutes(1)).forJob("job-j")
                .heldByThisJob().orElseThrow();
        again.checkOwner();
        first.renewIfDue();
        again.checkOwner();
        first.checkOwner();
        assertThat(new ArchiveLease(ArchiveRoot.of(root), "other", "archiver", Duration.ofMinutes(1)).forJob("job-k").heldByThisJob()).isEmpty();
        assertThat(new ArchiveLease(ArchiveRoot.of(root), "other", "archiver", Duration.ofMinutes(1)).heldByThisJob()).isEmpty();
        assertThat(Files.readString(java.nio.file.Path.of(dir.toString(), "_archiver", "lease.json"))).contains("\"owner\" : \"first-run\"");
    }

    /**
     * The holder renews while another run, which sees the lease expired, takes it over, 30 times: a renewal never
     * undoes the take-over. Either the take-over came first (the renewal fails: fenced), or the renewal did (the
     * take-over then lost its write or replaced the renewed lease, and the old holder's next check fails).
     */
    @Test
    void aRenewalRacingATakeOverNeverUndoesIt() throws Exception {
        String root = dir.toUri().toString();
        for (int round = 0; round < 30; round++) {
            writeLease(root, "crashed-run", System.currentTimeMillis() - 3_600_000);
            ArchiveLease holder = new ArchiveLease(ArchiveRoot.of(root), "holder-" + round, "holder", Duration.ofMinutes(1));
            holder.acquire();
            // a run for which a lease not renewed for 1 ms is expired: it takes over whatever the holder does
            ArchiveLease taker = new ArchiveLease(ArchiveRoot.of(root), "taker-" + round, "taker", Duration.ofMillis(1));
            Thread.sleep(2);
            List<Object> outcomes = race(() -> {
                holder.renewIfDue();
                return HELD;
            }, () -> acquireWithoutWaiting(taker));
            if (outcomes.get(1) == HELD) {
                taker.checkOwner();
                assertThatThrownBy(holder::checkOwner).as("round %d: %s", round, outcomes).hasMessageContaining("was fenced off");
            } else {
                assertThat(outcomes.get(1)).as("round %d: the take-over lost its write or saw the renewal", round)
                        .satisfiesAnyOf(o -> assertThat(o).isInstanceOf(ArchiveLease.LeaseException.class),
                                o -> assertThat(o).isEqualTo(WOULD_WAIT));
                holder.checkOwner();
            }
            holder.close();
            taker.close();
        }
    }

    private static final Object HELD = "held";
    private static final Object WOULD_WAIT = "would wait for a live holder";

    /** Takes the lease, or says it would wait for a live holder (without waiting), or returns the failure. */
    private static Object acquireWithoutWaiting(ArchiveLease lease) throws Exception {
        try {
            lease.acquire(ArchiveLease.EndedJobs.UNKNOWN, notice -> {
                throw new WouldWait();
            });
            return HELD;
        } catch (WouldWait e) {
            return WOULD_WAIT;
        }
    }

    private static final class WouldWait extends RuntimeException {}

    /** Runs both at once (released by one barrier); each one's result, or the exception it threw. */
    private static List<Object> race(Callable<Object> first, Callable<Object> second) throws Exception {
        CyclicBarrier start = new CyclicBarrier(2);
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            List<Future<Object>> results = new ArrayList<>();
            for (Callable<Object> task : List.of(first, second)) {
                results.add(threads.submit(() -> {
                    start.await(10, TimeUnit.SECONDS);
                    try {
                        return task.call();
                    } catch (Exception e) {
                        return e;
                    }
                }));
            }
            List<Object> outcomes = new ArrayList<>();
            for (Future<Object> result : results) {
                outcomes.add(result.get(30, TimeUnit.SECONDS));
            }
            return outcomes;
        } finally {
            threads.shutdownNow();
        }
    }


    /** Writes the lease of another run renewed at {@code renewedAt}, with a plain write. */
    private static void writeLease(String root, String owner, long renewedAt) throws Exception {
        java.nio.file.Path lease = java.nio.file.Path.of(new Path(new Path(root), "_archiver/lease.json").toUri().getPath());
        Files.createDirectories(lease.getParent());
        Files.writeString(lease, "{\"format\":1,\"owner\":\"" + owner + "\",\"job\":\"crashed\",\"host\":\"test\","
                + "\"renewed_at\":" + renewedAt + ",\"timeout_ms\":3000}", StandardCharsets.UTF_8);
    }
}
