package io.archiver.sink;

import io.archiver.capture.ClusterCapture;
import io.archiver.fs.IoThreads;
import io.archiver.kafka.LogEndProbe;
import io.archiver.fencing.ArchiveLease;
import io.archiver.position.PendingUploads;
import io.archiver.position.PositionRecord;
import io.archiver.position.SubtaskPositions;
import io.archiver.sink.files.FileStats;

import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.connector.file.sink.FileSinkCommittable;
import org.apache.flink.metrics.MetricGroup;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Commits one checkpoint's part files. It first checks that this job still holds the archive's lease
 * ({@link ArchiveLease}). Before any file becomes visible it writes, in its subtask's positions object, per
 * partition the {@link PositionRecord} that names the files and the offset after them ({@link SubtaskPositions});
 * then the file sink's committer completes the uploads, and the positions object is written once more to say
 * so; then the commit gets an INFO line (a DEBUG line per file) and the commit metrics
 * move. The first subtask's committer also owns the capture of topic settings and consumer group offsets
 * ({@link ClusterCapture}), which it closes with itself. A crash between the two steps leaves records whose files a stateless start completes
 * ({@link io.archiver.position.PositionRecovery}).
 */
final class ArchiveCommitter implements Committer<ArchiveCommittable> {

    private static final Logger LOG = LoggerFactory.getLogger(ArchiveCommitter.class);

    private final Committer<FileSinkCommittable> files;
    private final SubtaskPositions positions;
    private final PendingUploads uploads;
    private final ArchiveLease lease;
    private final CommitMetrics metrics;
    private final LogEndProbe logEnds;
    private final ClusterCapture capture;
    private final OrphanedUploadSweep sweep;
    /** S3 requests at once: position records written, files completed. */
    private final int requestThreads;
    /** Files erasures rewrote (known after a restore): committed before, their length changed since. */
    private final Set<String> erased;
    private ExecutorService requestPool;

    ArchiveCommitter(
            Committer<FileSinkCommittable> files, SubtaskPositions positions, PendingUploads uploads, ArchiveLease lease,
            LogEndProbe logEnds, ClusterCapture capture, OrphanedUploadSweep sweep, MetricGroup metrics, int requestThreads,
            Set<String> erased) {
        this.files = files;
        this.erased = erased;
        this.uploads = uploads;
        this.requestThreads = requestThreads;
        this.positions = positions;
        this.lease = lease;
        this.logEnds = logEnds;
        this.capture = capture;
        this.sweep = sweep;
        this.metrics = new CommitMetrics(metrics);
    }

    @Override
    public void commit(Collection<CommitRequest<ArchiveCommittable>> requests) throws IOException, InterruptedException {
        long start = System.nanoTime();
        lease.checkOwner();
        writePositions(requests);
        List<Request> delegated = new ArrayList<>(requests.size());
        for (CommitRequest<ArchiveCommittable> r : requests) {
            FileSinkCommittable file = r.getCommittable().file();
            if (file.hasPendingFile() && erased.contains(file.getPendingFile().getPath().toString())) {
                // an erasure read it whole, so it was committed; S3's committer would refuse its new length
                LOG.info("{} was committed before this restore and rewritten by an erasure since: not committed again",
                        file.getPendingFile().getPath());
                r.signalAlreadyCommitted();
                continue;
            }
            delegated.add(new Request(r));
        }
        commitFiles(delegated);
        if (delegated.stream().allMatch(Request::committed)) {
            settlePositions();
        }
        long files = 0;
        long records = 0;
        long bytes = 0;
        long checkpoint = ArchiveCommittable.UNKNOWN_CHECKPOINT;
        Set<TopicPartition> partitions = new HashSet<>();
        for (Request r : delegated) {
            ArchiveCommittable c = r.request.getCommittable();
            if (r.settled || !c.file().hasPendingFile()) {
                continue;
            }
            long fileBytes = c.file().getPendingFile().getSize();
            files++;
            bytes += fileBytes;
            checkpoint = Math.max(checkpoint, c.checkpointId());
            if (c.stats().isEmpty()) {
                LOG.debug("Committed {}: {} bytes, checkpoint {} (restored from a version without offsets)",
                        c.file().getPendingFile().getPath(), fileBytes, c.checkpointId());
                continue;
            }
            for (FileStats s : c.stats()) {
                LOG.debug("Committed {}: topic={} partition={} offsets={}..{} records={} bytes={} checkpoint={}",
                        c.file().getPendingFile().getPath(), s.topic(), s.partition(), s.firstOffset(), s.lastOffset(),
                        s.records(), fileBytes, c.checkpointId());
                records += s.records();
                partitions.add(new TopicPartition(s.topic(), s.partition()));
            }
            metrics.committed(c.stats(), fileBytes);
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        if (files > 0) {
            LOG.info("Committed checkpoint {}: {} files, {} records of {} partitions, {} bytes, in {} ms",
                    checkpoint, files, records, partitions.size(), bytes, millis);
        }
        metrics.commitDuration(millis);
        logEnds.refresh(metrics.archivedEnds(), metrics::lags);
        sweep.committed(requests.stream().mapToLong(r -> r.getCommittable().checkpointId()).max().orElse(ArchiveCommittable.UNKNOWN_CHECKPOINT));
    }

    /** Writes the position records of every partition with pending files in these requests. */
    private void writePositions(Collection<CommitRequest<ArchiveCommittable>> requests) throws IOException {
        Map<TopicPartition, List<PositionRecord.PendingFile>> byPartition = new LinkedHashMap<>();
        Map<TopicPartition, Long> checkpoints = new HashMap<>();
        Map<TopicPartition, FileStats> last = new HashMap<>();
        for (CommitRequest<ArchiveCommittable> r : requests) {
            ArchiveCommittable c = r.getCommittable();
            if (!c.file().hasPendingFile()) {
                continue;
            }
            PositionRecord.PendingFile file = null;
            for (FileStats s : c.stats()) {
                file = file == null
                        ? uploads.pendingFile(c.file().getPendingFile(), s.firstOffset(), s.lastOffset(), s.records())
                        : file.forRange(s.firstOffset(), s.lastOffset(), s.records());
                TopicPartition tp = new TopicPartition(s.topic(), s.partition());
                byPartition.computeIfAbsent(tp, k -> new ArrayList<>()).add(file);
                checkpoints.merge(tp, c.checkpointId(), Math::max);
                last.merge(tp, s, (a, b) -> a.lastOffset() >= b.lastOffset() ? a : b);
            }
        }
        if (byPartition.isEmpty()) {
            return;
        }
        List<PositionRecord> records = new ArrayList<>(byPartition.size());
        byPartition.forEach((tp, files) -> {
            long next = files.stream().mapToLong(PositionRecord.PendingFile::lastOffset).max().getAsLong() + 1;
            records.add(new PositionRecord(tp.topic(), tp.partition(), next, checkpoints.get(tp), files)
                    .withLastLeaderEpoch(last.get(tp).lastLeaderEpoch()));
        });
        positions.write(records);
    }

    /** Records that the commit is complete; the commit is, whether or not that write succeeds. */
    private void settlePositions() {
        try {
            positions.committed();
        } catch (IOException e) {
            LOG.warn("Cannot record the commit as complete in the archive's positions ({}): a start without state checks its files", e.toString());
        }
    }

    /**
     * Completes the files' uploads, a share on each request thread: each completion is a round trip to S3 (and
     * S3A deletes parent directory markers after it unless they are kept), and a checkpoint has a file per
     * partition and time folder written. The file
     * committer commits each file on its own; a file that fails fails the commit, as when done in one thread.
     */
    private void commitFiles(List<Request> requests) throws IOException, InterruptedException {
        int shares = Math.min(requestThreads, requests.size());
        if (shares <= 1) {
            files.commit(new ArrayList<>(requests));
            return;
        }
        List<Future<?>> commits = new ArrayList<>(shares);
        for (int i = 0; i < shares; i++) {
            List<CommitRequest<FileSinkCommittable>> share = new ArrayList<>();
            for (int j = i; j < requests.size(); j += shares) {
                share.add(requests.get(j));
            }
            commits.add(requestPool().submit(() -> {
                files.commit(share);
                return null;
            }));
        }
        try {
            for (Future<?> commit : commits) {
                commit.get();
            }
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw cause instanceof IOException ? (IOException) cause : new IOException("Cannot commit part files", cause);
        } finally {
            commits.forEach(c -> c.cancel(true));
        }
    }

    private ExecutorService requestPool() {
        if (requestPool == null) {
            requestPool = Executors.newFixedThreadPool(requestThreads, IoThreads.daemon("archive-commit"));
        }
        return requestPool;
    }

    @Override
    public void close() throws Exception {
        if (requestPool != null) {
            requestPool.shutdownNow();
        }
        logEnds.close();
        capture.close();
        sweep.close();
        lease.close();
        files.close();
    }

    /** The file committer's view of one request; signals pass through to the archiver's request. */
    private static final class Request implements CommitRequest<FileSinkCommittable> {
        private final CommitRequest<ArchiveCommittable> request;
        private boolean settled;
        private boolean alreadyCommitted;

        Request(CommitRequest<ArchiveCommittable> request) {
            this.request = request;
        }

        /** Whether the file is visible: committed now or before; not failed, nor to be retried. */
        boolean committed() {
            return !settled || alreadyCommitted;
        }

        @Override
        public FileSinkCommittable getCommittable() {
            return request.getCommittable().file();
        }

        @Override
        public int getNumberOfRetries() {
            return request.getNumberOfRetries();
        }

        @Override
        public void signalFailedWithKnownReason(Throwable t) {
            settled = true;
            request.signalFailedWithKnownReason(t);
        }

        @Override
        public void signalFailedWithUnknownReason(Throwable t) {
            settled = true;
            request.signalFailedWithUnknownReason(t);
        }

        @Override
        public void retryLater() {
            settled = true;
            request.retryLater();
        }

        @Override
        public void updateAndRetryLater(FileSinkCommittable committable) {
            settled = true;
            ArchiveCommittable c = request.getCommittable();
            request.updateAndRetryLater(new ArchiveCommittable(committable, c.stats(), c.checkpointId()));
        }

        @Override
        public void signalAlreadyCommitted() {
            settled = true;
            alreadyCommitted = true;
            request.signalAlreadyCommitted();
        }
    }
}
