package io.archiver.table;

import io.archiver.archive.ArchiveFile;
import io.archiver.archive.ArchiveFileReader;
import io.archiver.archive.ArchiveFiles;
import io.archiver.archive.ArchiveListing;
import io.archiver.record.PayloadFormats;
import io.archiver.sink.files.FileStats;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;

/**
 * Brings the tables up to the archive's folders: appends every committed Parquet file the tables do not hold.
 * {@link #catchUp} runs when a job starts without state: the files committed after the table's last append (the
 * crash window between a checkpoint's files becoming visible and its snapshot) and the files whose commit the start
 * completed are appended before the job commits anything. {@link #register} appends every file of an archive
 * written before it had a table. Both are idempotent ({@link ArchiveTable#append}).
 */
public final class TableSync {

    private static final Logger LOG = LoggerFactory.getLogger(TableSync.class);
    /**
     * How long before the table's last append a catch-up looks for files (by their modification time): files are
     * committed before their snapshot, and the object store's clock may differ from the committer's.
     */
    static final Duration CLOCK_MARGIN = Duration.ofHours(1);

    private TableSync() {}

    /** Appends the files committed since each topic's table last took some; returns the files appended. */
    public static int catchUp(ArchiveCatalog catalog, ArchiveFiles archive, ExecutorService pool) throws IOException {
        return sync(catalog, archive, pool, false, "catch-up");
    }

    /** Appends every committed file of the archive that its topic's table does not hold; returns the files appended. */
    public static int register(ArchiveCatalog catalog, ArchiveFiles archive, ExecutorService pool) throws IOException {
        return sync(catalog, archive, pool, true, "register");
    }

    /**
     * The committed Parquet files of {@code listing} by topic, then path, each with its shares (one per partition of a
     * file of the per-topic layout). Files of other formats are named and left out: a table holds Parquet files only.
     */
    static Map<String, Map<String, List<ArchiveFile>>> parquetFilesByTopic(ArchiveListing listing) {
        Map<String, Map<String, List<ArchiveFile>>> byTopic = new TreeMap<>();
        for (ArchiveFile f : listing.committed()) {
            if (!f.path().getName().endsWith(".parquet")) {
                LOG.warn("Not a table's file (only Parquet files are): {}", f.path());
                continue;
            }
            byTopic.computeIfAbsent(f.topic(), t -> new TreeMap<>()).computeIfAbsent(f.path().toString(), p -> new ArrayList<>()).add(f);
        }
        return byTopic;
    }

    private static int sync(ArchiveCatalog catalog, ArchiveFiles archive, ExecutorService pool, boolean everything, String job)
            throws IOException {
        Map<String, Map<String, List<ArchiveFile>>> byTopic = parquetFilesByTopic(archive.list());
        ArchiveFileReader reader = new ArchiveFileReader(PayloadFormats.BYTES);
        int appended = 0;
        for (Map.Entry<String, Map<String, List<ArchiveFile>>> topic : byTopic.entrySet()) {
            ArchiveTable table = catalog.table(topic.getKey());
            TablePositions positions = table.positions();
            long since = everything || positions.lastAppendMillis().isEmpty()
                    ? Long.MIN_VALUE
                    : positions.lastAppendMillis().getAsLong() - CLOCK_MARGIN.toMillis();
            List<TableFile> files = new ArrayList<>();
            for (Map.Entry<String, List<ArchiveFile>> file : topic.getValue().entrySet()) {
                ArchiveFile first = file.getValue().get(0);
                if (first.modificationTime() < since) {
                    continue;
                }
                List<FileStats> ranges = new ArrayList<>();
                for (ArchiveFile share : file.getValue()) {
                    long[] stats = share.offsetStatistics(reader);
                    if (stats != null) {
                        ranges.add(new FileStats(share.topic(), share.partition(), stats[0], stats[1], stats[2]));
                    }
                }
                if (ranges.isEmpty()) {
                    LOG.warn("{}: no offset statistics in its footer, not appended to table {}", file.getKey(), table.name());
                    continue;
                }
                files.add(new TableFile(file.getKey(), first.size(), ranges));
            }
            if (files.isEmpty()) {
                continue;
            }
            ArchiveTable.Appended result = table.append(files, Map.of(TablePositions.JOB, job), pool);
            if (result.files() > 0) {
                LOG.info("Table {}: {} appended {} files of the archive ({} records) the table did not hold, snapshot {}",
                        table.name(), job, result.files(), result.records(), result.snapshot().snapshotId());
            }
            appended += result.files();
        }
        return appended;
    }
}
