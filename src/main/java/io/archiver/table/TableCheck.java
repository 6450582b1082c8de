package io.archiver.table;

import io.archiver.archive.ArchiveFile;
import io.archiver.archive.ArchiveFileReader;
import io.archiver.archive.ArchiveListing;
import io.archiver.record.PayloadFormats;

import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Compares each topic's table with the archive's folders ({@link TableAgreement}), for {@code audit}: a committed file
 * the table does not list is lacking when its offsets lie below what the table holds of its partition, and the next
 * snapshot's when they lie after (no clocks compared). Only the footers of files the table does not list are read.
 */
public final class TableCheck {

    private TableCheck() {}

    /**
     * Whether a file the table does not list holds offsets below what the table holds of its partitions (the table moved
     * past it: it lacks the file) rather than after (the next snapshot's).
     */
    private static boolean below(List<ArchiveFile> shares, TablePositions positions, ArchiveFileReader reader) throws IOException {
        for (ArchiveFile share : shares) {
            long[] stats = share.offsetStatistics(reader);
            if (stats != null && positions.next(share.partition()).map(n -> stats[1] < n).orElse(false)) {
                return true;
            }
        }
        return false;
    }

    /** The agreement of each topic's table with the committed Parquet files of {@code listing}, by topic. */
    public static List<TableAgreement> compare(ArchiveCatalog catalog, ArchiveListing listing) throws IOException {
        Map<String, Map<String, List<ArchiveFile>>> byTopic = TableSync.parquetFilesByTopic(listing);
        ArchiveFileReader reader = new ArchiveFileReader(PayloadFormats.BYTES);
        List<TableAgreement> agreements = new ArrayList<>();
        for (Map.Entry<String, Map<String, List<ArchiveFile>>> topic : byTopic.entrySet()) {
            String name = catalog.identifier(topic.getKey()).toString();
            if (!catalog.exists(topic.getKey())) {
                agreements.add(new TableAgreement(name, -1, 0, new ArrayList<>(topic.getValue().keySet()), 0, List.of()));
                continue;
            }
            Table table = catalog.catalog().loadTable(catalog.identifier(topic.getKey()));
            Set<String> listed = new TreeSet<>();
            if (table.currentSnapshot() != null) {
                try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
                    tasks.forEach(t -> listed.add(t.file().location()));
                }
            }
            TablePositions positions = TablePositions.of(table);
            List<String> lacking = new ArrayList<>();
            int inFlight = 0;
            for (Map.Entry<String, List<ArchiveFile>> file : topic.getValue().entrySet()) {
                if (listed.contains(file.getKey())) {
                    continue;
                }
                if (below(file.getValue(), positions, reader)) {
                    lacking.add(file.getKey());
                } else {
                    inFlight++;
                }
            }
            List<String> extra = listed.stream().filter(f -> !topic.getValue().containsKey(f)).toList();
            agreements.add(new TableAgreement(name, table.currentSnapshot() == null ? -1 : table.currentSnapshot().snapshotId(),
                    listed.size(), lacking, inFlight, extra));
        }
        return agreements;
    }
}
