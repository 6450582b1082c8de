package io.archiver.fencing;

import io.archiver.archive.ArchiveRoot;
import io.archiver.config.UserFacingError;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.core.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.Serializable;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Keeps two jobs from writing one archive: {@code <root>/_archiver/lease.json} names the run (one job
 * submission) that owns the archive. A run takes the lease before its job is submitted ({@link #acquire}),
 * renews it while it runs ({@link #renewIfDue}, from every sink subtask) and checks it before every commit
 * ({@link #checkOwner}). A second job fails at start while the owner renews; a lease not renewed for the
 * lease timeout is taken over, and the old owner, should it come back, is fenced: its next renewal or
 * commit fails before anything becomes visible.
 *
 * <p>The sink's writers name their Flink job in the lease ({@link #forJob}). A run that finds the lease held
 * by a job its cluster reports ended (stopped with a savepoint, cancelled, finished, failed) takes it at once
 * instead of waiting for it to expire ({@link EndedJobs}).
 *
 * <p>Every write is a compare-and-swap against the version last read ({@link LeaseObject}: on S3 a request
 * conditional on the object's ETag): of two runs taking over an expired lease at once, or a take-over and the old
 * owner's renewal, one write succeeds and the other fails instead of overwriting it. Subtasks of one run renew
 * the same lease: one of them losing the race to a sibling is no failure.
 */
public final class ArchiveLease implements Serializable {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(ArchiveLease.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long POLL_MILLIS = 500;

    private final ArchiveRoot root;
    private final String runId;
    private final String jobName;
    private final long timeoutMillis;
    /** The Flink job of the writers that renew through this copy; empty for the run's client. */
    private final String flinkJob;
    /** Whether this run took the lease over from a run whose lease expired (not from one that ended). */
    private boolean tookOverExpired;
    private transient long lastRenewal;
    private transient LeaseObject object;

    public ArchiveLease(ArchiveRoot root, String runId, String jobName, Duration timeout) {
        this(root, runId, jobName, timeout.toMillis(), "");
    }

    private ArchiveLease(ArchiveRoot root, String runId, String jobName, long timeoutMillis, String flinkJob) {
        this.root = root;
        this.runId = runId;
        this.jobName = jobName;
        this.timeoutMillis = timeoutMillis;
        this.flinkJob = flinkJob;
    }

    /** This run's lease as renewed by a sink writer of the Flink job {@code jobId}, which it names in the lease. */
    public ArchiveLease forJob(String jobId) {
        ArchiveLease copy = new ArchiveLease(root, runId, jobName, timeoutMillis, jobId);
        copy.tookOverExpired = tookOverExpired;
        return copy;
    }

    /** This lease for another thread: the same run and job, its own connection to the lease's store. */
    public ArchiveLease copy() {
        return forJob(flinkJob);
    }

    /**
     * The lease of the run of this lease's Flink job that holds the archive now, when the lease names that job
     * ({@link #forJob}): in application mode a JobManager that takes over runs the job's {@code main()} again,
     * under the job's fixed id, for the job it recovers from its HA store, whose writers keep renewing the lease of
     * the run that started it. That launch is not another job: it runs under the same lease, without waiting for
     * it or taking it. Empty when the lease is free, or names another job or none.
     */
    public Optional<ArchiveLease> heldByThisJob() throws IOException {
        if (flinkJob.isEmpty()) {
            return Optional.empty();
        }
        return read().filter(h -> h.flinkJob.equals(flinkJob)).map(h -> {
            LOG.info("The archive {} is leased by {}: this launch runs that job again (a JobManager failover) and keeps its lease",
                    root, h.describe());
            return new ArchiveLease(root, h.owner, jobName, timeoutMillis, flinkJob);
        });
    }

    /**
     * Whether this run took the lease over from another run whose lease had expired: that run died without
     * ending, or is cut off and will be fenced. Taking it from a job its cluster reports ended is not counted.
     */
    public boolean tookOverExpired() {
        return tookOverExpired;
    }

    public Path path() {
        return root.lease();
    }

    /** {@link #acquire(EndedJobs, Consumer)} where no cluster can tell which jobs ended, telling nobody. */
    public void acquire() throws IOException, InterruptedException {
        acquire(EndedJobs.UNKNOWN, notice -> {});
    }

    /**
     * Takes the lease for this run. Free or expired: taken at once; held by a Flink job that {@code ended}
     * reports ended: taken at once. Held by another run and renewed less than the lease timeout ago: watched
     * until it is renewed (another job is alive: fails), its job ends, or it expires; {@code notices} is told
     * who holds it and how long this run waits at most.
     */
    public void acquire(EndedJobs ended, Consumer<String> notices) throws IOException, InterruptedException {
        Optional<Holder> current = read();
        if (current.isPresent() && !current.get().owner.equals(runId)) {
            Holder held = current.get();
            long age = System.currentTimeMillis() - held.renewedAt;
            Optional<String> end = ended.endState(held.flinkJob);
            if (age < timeoutMillis && end.isEmpty()) {
                String waiting = String.format(
                        "The archive %s is leased by %s, renewed %d ms ago; waiting up to %d s for that job to end or its lease to expire",
                        root, held.describe(), age, (timeoutMillis - age + 999) / 1000);
                LOG.info(waiting);
                notices.accept(waiting);
                end = awaitEndOrExpiry(held, ended);
            }
            if (end.isPresent()) {
                LOG.info("Taking over the archive {} from {}: its Flink job {} is {}", root, held.describe(), held.flinkJob, end.get());
                // the ended job may have renewed the lease once more before it ended: take over what it wrote last
                current = read();
                if (current.isPresent() && !current.get().owner.equals(held.owner)) {
                    throw anotherJob(current.get());
                }
            } else {
                LOG.warn("Taking over the archive {} from {} (lease not renewed for {} ms)",
                        root, held.describe(), System.currentTimeMillis() - held.renewedAt);
                tookOverExpired = true;
            }
        }
        if (!write(current.map(Holder::version))) {
            // refused: another run wrote first, or this write landed and a retry of it was refused
            Optional<Holder> winner = read();
            if (winner.isPresent() && winner.get().owner.equals(runId)) {
                LOG.info("Run {} holds the lease of the archive {} ({}; timeout {} ms)", runId, root, path(), timeoutMillis);
                return;
            }
            throw new LeaseException(String.format(
                    "Another archiver job took the lease of %s at the same moment as this one: %s holds it now (%s). Two jobs "
                            + "on one archive would interleave their files. Stop the other job first, or give this job its own "
                            + "sink.path.", root, winner.map(Holder::describe).orElse("nobody (deleted since)"), path()));
        }
        LOG.info("Run {} holds the lease of the archive {} ({}; timeout {} ms)", runId, root, path(), timeoutMillis);
    }

    /** Waits until the holder's job ends (its end state) or its lease expires (empty); fails if it is renewed. */
    private Optional<String> awaitEndOrExpiry(Holder held, EndedJobs ended) throws IOException, InterruptedException {
        long deadline = held.renewedAt + timeoutMillis;
        while (System.currentTimeMillis() < deadline) {
            Thread.sleep(POLL_MILLIS);
            Optional<String> end = ended.endState(held.flinkJob);
            if (end.isPresent()) {
                return end;
            }
            Optional<Holder> now = read();
            if (now.isPresent() && (now.get().renewedAt != held.renewedAt || !now.get().owner.equals(held.owner))) {
                throw anotherJob(now.get());
            }
        }
        return Optional.empty();
    }

    private LeaseException anotherJob(Holder live) {
        return new LeaseException(String.format(
                "Another archiver job writes to %s: run %s of '%s' on %s renewed or took the lease %s while this job waited. "
                        + "Two jobs on one archive would interleave their files. Stop the other job first, or give this job "
                        + "its own sink.path.", root, live.owner, live.job, live.host, path()));
    }

    /**
     * Renews the lease if a quarter of the timeout passed since this subtask last did; fails if fenced. A renewal
     * that finds the lease changed since it read it reads again: renewed by a subtask of this run, it is renewed.
     */
    public void renewIfDue() throws IOException {
        long now = System.currentTimeMillis();
        if (now - lastRenewal < timeoutMillis / 4) {
            return;
        }
        if (!write(Optional.of(owned().version))) {
            owned();
        }
        lastRenewal = now;
    }

    /** Fails unless this run still holds the lease. */
    public void checkOwner() throws IOException {
        owned();
    }

    /** The lease as read, held by this run; fails (fenced) when another run holds it or it is gone. */
    private Holder owned() throws IOException {
        Optional<Holder> current = read();
        if (current.isEmpty() || !current.get().owner.equals(runId)) {
            String other = current.map(h -> "run " + h.owner + " of '" + h.job + "' on " + h.host).orElse("nobody (deleted)");
            throw new LeaseException(String.format(
                    "This job (run %s) was fenced off the archive %s: its lease %s is now held by %s. Nothing more is committed "
                            + "by this job; another job took over after this one did not renew the lease for %d ms.",
                    runId, root, path(), other, timeoutMillis));
        }
        return current.get();
    }

    /** Writes this run's lease if the object is still at {@code version} (absent: if there is none); false if not. */
    private boolean write(Optional<String> version) throws IOException {
        ObjectNode n = JSON.createObjectNode();
        n.put("format", 1);
        n.put("owner", runId);
        n.put("job", jobName);
        n.put("host", host());
        n.put("renewed_at", System.currentTimeMillis());
        n.put("timeout_ms", timeoutMillis);
        if (!flinkJob.isEmpty()) {
            n.put("flink_job", flinkJob);
        }
        byte[] bytes = JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(n);
        return version.isPresent() ? object().replace(bytes, version.get()) : object().create(bytes);
    }

    private Optional<Holder> read() throws IOException {
        Path path = path();
        Optional<LeaseObject.Versioned> read = object().read();
        if (read.isEmpty()) {
            return Optional.empty();
        }
        JsonNode n = JSON.readTree(read.get().bytes());
        if (n == null || !n.hasNonNull("owner")) {
            throw new IOException("Unreadable archive lease " + path + ": remove it if no archiver job runs on " + root);
        }
        return Optional.of(new Holder(n.path("owner").asText(), n.path("job").asText(), n.path("host").asText(),
                n.path("renewed_at").asLong(), n.path("timeout_ms").asLong(timeoutMillis), n.path("flink_job").asText(""),
                read.get().version()));
    }

    private LeaseObject object() throws IOException {
        if (object == null) {
            object = LeaseObject.at(path());
        }
        return object;
    }

    /** Lets go of the connection to the lease's store (the lease itself stays as it is). */
    public void close() {
        if (object != null) {
            object.close();
            object = null;
        }
    }

    private static String host() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "unknown host";
        }
    }

    /**
     * The run holding the lease if it renewed it within its timeout (a live job), as text naming it; empty
     * when the lease is free or expired. Does not wait.
     */
    public Optional<String> liveHolder() throws IOException {
        return liveHolder(EndedJobs.UNKNOWN);
    }

    /** {@link #liveHolder()}, but empty too when {@code ended} tells that the holder's Flink job has ended. */
    public Optional<String> liveHolder(EndedJobs ended) throws IOException {
        return read().filter(h -> !h.owner.equals(runId) && System.currentTimeMillis() - h.renewedAt < h.timeoutMillis)
                .filter(h -> ended.endState(h.flinkJob).isEmpty())
                .map(Holder::describe);
    }

    /** Gives the lease up if this run holds it, so that the next job need not wait for it to expire. */
    public void release() throws IOException {
        Optional<Holder> current = read();
        if (current.isPresent() && current.get().owner.equals(runId)) {
            object().delete();
        }
    }

    /** Who holds the lease, as read from the lease object; {@code flinkJob} empty until a writer renewed it. */
    private record Holder(String owner, String job, String host, long renewedAt, long timeoutMillis, String flinkJob,
            String version) {

        String describe() {
            return "run " + owner + " of '" + job + "'" + (flinkJob.isEmpty() ? "" : " (Flink job " + flinkJob + ")") + " on " + host;
        }
    }

    /** Which Flink jobs have ended, as far as the cluster a run is submitted to can tell. */
    @FunctionalInterface
    public interface EndedJobs {

        /** No cluster to ask: no job is known to have ended. */
        EndedJobs UNKNOWN = job -> Optional.empty();

        /**
         * The terminal state (e.g. FINISHED, CANCELED) of Flink job {@code jobId}, empty when it runs, is
         * unknown to the cluster or the cluster cannot be asked; {@code jobId} may be empty (not named yet).
         */
        Optional<String> endState(String jobId);
    }

    /** The archive is leased by another run. */
    public static final class LeaseException extends IOException implements UserFacingError {
        private static final long serialVersionUID = 1L;

        LeaseException(String message) {
            super(message);
        }
    }
}
