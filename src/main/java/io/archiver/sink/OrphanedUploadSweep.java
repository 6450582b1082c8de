package io.archiver.sink;

import io.archiver.metrics.ArchiverMetric;
import io.archiver.archive.ArchiveRoot;
import io.archiver.archive.IncompleteUploads;
import io.archiver.archive.S3IncompleteUploads;
import io.archiver.fencing.ArchiveLease;
import io.archiver.position.PositionStore;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Aborts the archive's orphaned multipart uploads while the job runs, on the first committer subtask: uploads under
 * {@code sink.path} started more than {@code sink.orphaned-uploads.abort-after} ago that were neither completed nor
 * aborted. Kills and failovers leave them (the part files being written then), S3 keeps and bills their parts for ever,
 * and nothing can ever complete them. How it knows no restore still needs one:
 * <ul>
 *   <li>this job holds the archive's lease (checked before each sweep), so no other job writes under the root;
 *   <li>part files roll at every checkpoint, so the job's own uploads in progress are younger than a checkpoint's
 *       time-out plus two intervals, which the setting must exceed;
 *   <li>the uploads of the checkpoint this job restored were committed when its committers started (Flink commits
 *       restored committables in the committer's initialization), and the first sweep waits for a checkpoint completed
 *       after the restored one, which every committer subtask started before;
 *   <li>uploads that position records list (a commit cut short, which a start without state completes) are kept.
 * </ul>
 * What it cannot know: a checkpoint or savepoint the job did not restore, whose files were never committed; restoring
 * one older than the setting fails on its aborted uploads (docs/known-limits.md says so).
 */
final class OrphanedUploadSweep implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(OrphanedUploadSweep.class);
    /** The longest pause between two sweeps; a shorter age sweeps every quarter of itself. */
    private static final Duration MOST_EVERY = Duration.ofMinutes(15);

    /** A committer subtask that does not sweep. */
    static final OrphanedUploadSweep NONE = new OrphanedUploadSweep(null, Duration.ZERO, null, OptionalLong.empty(), null);

    private final ArchiveRoot root;
    private final Duration abortAfter;
    private final ArchiveLease lease;
    /** The checkpoint the job restored: the sweep starts after a later one committed. */
    private final OptionalLong restoredCheckpoint;
    private final Counter aborted;
    private ScheduledExecutorService scheduler;
    /** Set when the committer closes: a sweep it interrupts then is not a failure. */
    private volatile boolean closed;
    private String lastFailure;

    private OrphanedUploadSweep(ArchiveRoot root, Duration abortAfter, ArchiveLease lease, OptionalLong restoredCheckpoint, Counter aborted) {
        this.root = root;
        this.abortAfter = abortAfter;
        this.lease = lease;
        this.restoredCheckpoint = restoredCheckpoint;
        this.aborted = aborted;
    }

    /**
     * The sweep of the committer subtask {@code subtask} of a job that restored {@code restoredCheckpoint}: the first
     * subtask sweeps (counting aborted uploads in {@code metrics} as {@code orphanedUploadsAborted}), the others and a
     * zero {@code abortAfter} do not. The sweep checks its own copy of the run's {@code lease}, on its own thread.
     */
    static OrphanedUploadSweep forCommitter(
            ArchiveRoot root, Duration abortAfter, ArchiveLease lease, int subtask, OptionalLong restoredCheckpoint, MetricGroup metrics) {
        if (subtask != 0 || abortAfter.isZero()) {
            return NONE;
        }
        return new OrphanedUploadSweep(root, abortAfter, lease.copy(), restoredCheckpoint, ArchiverMetric.ORPHANED_UPLOADS_ABORTED.counter(metrics));
    }

    /**
     * Called after a commit of files up to {@code checkpoint}: the first one later than the restored checkpoint (every
     * committer started) starts the sweeps, then every quarter of the age (at most every 15 minutes) in the background.
     */
    synchronized void committed(long checkpoint) {
        if (root == null || scheduler != null || (restoredCheckpoint.isPresent() && checkpoint <= restoredCheckpoint.getAsLong())) {
            return;
        }
        long period = Math.max(1, Math.min(abortAfter.toMillis() / 4, MOST_EVERY.toMillis()));
        scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "orphaned-upload-sweep");
            t.setDaemon(true);
            return t;
        });
        scheduler.scheduleWithFixedDelay(this::sweep, 0, period, TimeUnit.MILLISECONDS);
        LOG.info("Aborting uploads under {} left incomplete for {} (sink.orphaned-uploads.abort-after), every {} ms", root, abortAfter, period);
    }

    private void sweep() {
        try (IncompleteUploads uploads = S3IncompleteUploads.forFileSystem(root.uri())) {
            lease.checkOwner();
            Instant before = Instant.now().minus(abortAfter);
            IncompleteUploads.Sorted sorted = IncompleteUploads.sort(
                    uploads.list(root.uri()), PositionStore.listedKeys(new PositionStore(root).read().all()), before);
            List<IncompleteUploads.Upload> orphaned = sorted.orphaned();
            for (IncompleteUploads.Upload upload : orphaned) {
                uploads.abort(upload);
                aborted.inc();
            }
            if (!orphaned.isEmpty()) {
                LOG.info("Aborted {} orphaned uploads under {} started before {} (sink.orphaned-uploads.abort-after: {}); "
                        + "kept {} of commits cut short", orphaned.size(), root, before, abortAfter, sorted.cutShort().size());
            }
            lastFailure = null;
        } catch (IOException | RuntimeException | LinkageError e) {
            if (closed) {
                return;
            }
            String failure = String.valueOf(e.getMessage());
            if (!failure.equals(lastFailure)) {
                LOG.warn("Cannot abort the orphaned uploads under {}: {}. They stay until this works again (the job needs "
                        + "s3:ListBucketMultipartUploads and s3:AbortMultipartUpload on the bucket), `cleanup --apply` removes them, or a "
                        + "lifecycle rule does with sink.orphaned-uploads.abort-after: 0", root, failure);
            }
            lastFailure = failure;
        } finally {
            lease.close();
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (scheduler != null) {
            scheduler.shutdownNow();
            scheduler = null;
        }
    }
}
