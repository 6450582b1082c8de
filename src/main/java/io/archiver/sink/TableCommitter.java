package io.archiver.sink;

import io.archiver.archive.ArchiveRoot;
import io.archiver.fencing.ArchiveLease;
import io.archiver.fs.IoThreads;
import io.archiver.metrics.ArchiverMetric;
import io.archiver.position.PositionRecord;
import io.archiver.position.PositionRecovery;
import io.archiver.table.ArchiveCatalog;
import io.archiver.table.ArchiveTable;
import io.archiver.table.TableFile;
import io.archiver.table.TablePositions;
import io.archiver.table.TableArchiveFiles;
import io.archiver.table.TableSettings;
import io.archiver.table.TableSync;

import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.core.fs.Path;
import org.apache.flink.metrics.Counter;
import org.apache.flink.util.TemporaryClassLoaderContext;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The table's committer: Flink's global committer (one subtask) after the archive's committers, so it sees a
 * checkpoint's files once every committer has made them visible, and appends them to their topics' tables in one
 * snapshot per table and checkpoint ({@link ArchiveTable#append}, idempotent). It checks the archive's lease first,
 * as the file committers do. Started without state, it first completes the commits the last run cut short and
 * appends the files committed after the tables' last snapshots ({@link TableSync#catchUp}).
 *
 * <p>A checkpoint's files reach it after they are visible, so a crash in between leaves files the table lacks:
 * a restore from that checkpoint commits them again and they come back here (Flink re-emits a restored checkpoint's
 * committables); a start without state catches up; a failed append fails the job, never skipped.
 */
final class TableCommitter implements Committer<ArchiveCommittable> {

    private static final Logger LOG = LoggerFactory.getLogger(TableCommitter.class);

    private final ArchiveCatalog catalog;
    private final ArchiveLease lease;
    private final String jobId;
    private final ExecutorService pool;
    private final AtomicLong lastSnapshotMillis = new AtomicLong();
    private Counter appendedFiles;

    private TableCommitter(ArchiveCatalog catalog, ArchiveLease lease, String jobId, ExecutorService pool) {
        this.catalog = catalog;
        this.lease = lease;
        this.jobId = jobId;
        this.pool = pool;
    }

    /**
     * The committer of {@code context}'s job; a start without state catches the tables up with {@code root} first, and so
     * does a start from a checkpoint or savepoint when a topic of the archive has no table yet (tables enabled on an
     * existing archive): a table then holds the archive's files from the first offset, never only the job's next ones.
     */
    static TableCommitter create(
            CommitterInitContext context, TableSettings settings, ArchiveLease lease, ArchiveRoot root, int threads) throws IOException {
        ExecutorService pool = Executors.newFixedThreadPool(threads, IoThreads.daemon("table-commit"));
        TableCommitter committer = new TableCommitter(
                ArchiveCatalog.open(settings), lease, context.getJobInfo().getJobId().toHexString(), pool);
        ArchiverMetric.TABLE_LAST_SNAPSHOT_TIMESTAMP.gauge(context.metricGroup(), committer.lastSnapshotMillis::get);
        committer.appendedFiles = ArchiverMetric.TABLE_APPENDED_FILES.counter(context.metricGroup());
        try (TemporaryClassLoaderContext ignored = icebergContext()) {
            if (context.getRestoredCheckpointId().isEmpty()) {
                committer.catchUp(root);
            } else if (committer.tableMissing(root)) {
                // tables enabled on an archive resumed from a savepoint: the archive's files first, then the job's
                int appended = TableSync.catchUp(committer.catalog, TableArchiveFiles.of(root, settings), pool);
                committer.appendedFiles.inc(appended);
                LOG.info("Tables created for the archive's topics: {} files the archive held before appended", appended);
            }
        }
        return committer;
    }

    /** Whether a topic of the archive has no table, or one without a snapshot. */
    private boolean tableMissing(ArchiveRoot root) throws IOException {
        for (String topic : root.topics()) {
            if (!catalog.exists(topic) || catalog.catalog().loadTable(catalog.identifier(topic)).currentSnapshot() == null) {
                return true;
            }
        }
        return false;
    }

    private void catchUp(ArchiveRoot root) throws IOException {
        PositionRecovery recovery = new PositionRecovery(root);
        List<TopicPartition> partitions = new ArrayList<>();
        for (PositionRecord r : recovery.read().all()) {
            partitions.add(new TopicPartition(r.topic(), r.partition()));
        }
        recovery.resumePositions(partitions);
        int appended = TableSync.catchUp(catalog, TableArchiveFiles.of(root, catalog.settings()), pool);
        appendedFiles.inc(appended);
        LOG.info("Tables caught up with the archive at the start without state: {} files appended", appended);
    }

    /**
     * The class loader of the job's classes as the thread's context class loader: Iceberg starts threads of its own
     * (a static pool), which inherit it and outlive this task attempt, whose own context class loader is closed with it.
     */
    private static TemporaryClassLoaderContext icebergContext() {
        return TemporaryClassLoaderContext.of(TableCommitter.class.getClassLoader());
    }

    @Override
    public void commit(Collection<CommitRequest<ArchiveCommittable>> requests) throws IOException, InterruptedException {
        try (TemporaryClassLoaderContext ignored = icebergContext()) {
            append(requests);
        }
    }

    private void append(Collection<CommitRequest<ArchiveCommittable>> requests) throws IOException {
        long start = System.nanoTime();
        Map<String, List<TableFile>> byTopic = new TreeMap<>();
        long checkpoint = ArchiveCommittable.UNKNOWN_CHECKPOINT;
        for (CommitRequest<ArchiveCommittable> r : requests) {
            ArchiveCommittable c = r.getCommittable();
            if (!c.file().hasPendingFile()) {
                continue;
            }
            TableFile file = tableFile(c);
            byTopic.computeIfAbsent(file.topic(), t -> new ArrayList<>()).add(file);
            checkpoint = Math.max(checkpoint, c.checkpointId());
        }
        if (byTopic.isEmpty()) {
            return;
        }
        lease.checkOwner();
        Map<String, String> summary = Map.of(
                TablePositions.CHECKPOINT, checkpoint == Long.MAX_VALUE ? "end-of-input" : Long.toString(checkpoint),
                TablePositions.JOB, jobId);
        for (Map.Entry<String, List<TableFile>> topic : byTopic.entrySet()) {
            ArchiveTable table = catalog.table(topic.getKey());
            ArchiveTable.Appended appended = table.append(topic.getValue(), summary, pool);
            if (appended.files() > 0) {
                lastSnapshotMillis.set(appended.snapshot().timestampMillis());
                appendedFiles.inc(appended.files());
                LOG.info("Table {}: snapshot {} for checkpoint {}: {} files, {} records, in {} ms", table.name(),
                        appended.snapshot().snapshotId(), summary.get(TablePositions.CHECKPOINT), appended.files(),
                        appended.records(), (System.nanoTime() - start) / 1_000_000);
            } else {
                LOG.info("Table {}: checkpoint {}'s {} files were already in the table", table.name(),
                        summary.get(TablePositions.CHECKPOINT), topic.getValue().size());
            }
        }
    }

    /**
     * The table's view of a committed part file: its offsets from the committable, or, for one restored from a savepoint
     * of a version that did not keep them, from its footer.
     */
    private static TableFile tableFile(ArchiveCommittable c) throws IOException {
        Path path = c.file().getPendingFile().getPath();
        long size = c.file().getPendingFile().getSize();
        return c.stats().isEmpty() ? TableFile.fromFooter(path, size) : new TableFile(path.toString(), size, c.stats());
    }

    @Override
    public void close() throws Exception {
        pool.shutdownNow();
        lease.close();
        catalog.close();
    }
}
