package io.archiver.table;

import io.archiver.archive.ArchiveFile;
import io.archiver.archive.ArchiveFileReader;
import io.archiver.archive.ArchiveListing;
import io.archiver.record.PayloadFormats;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;

/**
 * Compares each topic's table with the archive's folders ({@link TableAgreement}), for {@code audit}: a committed file
 * the table does not list is lacking when its offsets lie below what the table holds of its partition, and the next
 * snapshot's when they lie after (no clocks compared); below and replaced by a compaction, or a compaction's output
 * never committed, it waits for {@code table expire}. Only the footers of files the table does not list are read.
 */
public final class TableCheck {

    private TableCheck() {}

    /**
     * The agreement of each topic's table with the committed Parquet files of {@code folders} (the archive's folders as
     * listed, not through the table), by topic.
     */
    public static List<TableAgreement> compare(ArchiveCatalog catalog, ArchiveListing folders, ExecutorService pool) throws IOException {
        Map<String, Map<String, List<ArchiveFile>>> byTopic = TableSync.parquetFilesByTopic(folders);
        ArchiveFileReader reader = new ArchiveFileReader(PayloadFormats.BYTES);
        List<TableAgreement> agreements = new ArrayList<>();
        for (Map.Entry<String, Map<String, List<ArchiveFile>>> topic : byTopic.entrySet()) {
            String name = catalog.identifier(topic.getKey()).toString();
            if (!catalog.exists(topic.getKey())) {
                agreements.add(new TableAgreement(name, -1, 0, new ArrayList<>(topic.getValue().keySet()), 0, 0, 0, List.of()));
                continue;
            }
            TableState state = TableState.current(catalog.catalog().loadTable(catalog.identifier(topic.getKey())), pool);
            List<String> lacking = new ArrayList<>();
            int inFlight = 0;
            int replaced = 0;
            int abandoned = 0;
            for (Map.Entry<String, List<ArchiveFile>> file : topic.getValue().entrySet()) {
                if (state.lists(file.getKey())) {
                    continue;
                }
                if (!state.below(file.getValue(), reader)) {
                    inFlight++;
                } else if (state.replaced(file.getKey())) {
                    replaced++;
                } else if (TableState.isMaintenanceOutput(file.getKey())) {
                    abandoned++;
                } else {
                    lacking.add(file.getKey());
                }
            }
            List<String> extra = state.files().stream().map(f -> f.location()).filter(f -> !topic.getValue().containsKey(f)).sorted().toList();
            agreements.add(new TableAgreement(name, state.snapshot() == null ? -1 : state.snapshot().snapshotId(),
                    state.files().size(), lacking, inFlight, replaced, abandoned, extra));
        }
        return agreements;
    }
}
