package io.archiver.table;

import io.archiver.archive.ArchiveFile;
import io.archiver.archive.ArchiveListing;

import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/** Compares each topic's table with the archive's folders ({@link TableAgreement}), for {@code audit}. */
public final class TableCheck {

    private TableCheck() {}

    /** The agreement of each topic's table with the committed Parquet files of {@code listing}, by topic. */
    public static List<TableAgreement> compare(ArchiveCatalog catalog, ArchiveListing listing) throws IOException {
        Map<String, Map<String, Long>> byTopic = new TreeMap<>();
        for (ArchiveFile f : listing.committed()) {
            if (f.path().getName().endsWith(".parquet")) {
                byTopic.computeIfAbsent(f.topic(), t -> new HashMap<>()).put(f.path().toString(), f.modificationTime());
            }
        }
        List<TableAgreement> agreements = new ArrayList<>();
        for (Map.Entry<String, Map<String, Long>> topic : byTopic.entrySet()) {
            String name = catalog.identifier(topic.getKey()).toString();
            if (!catalog.exists(topic.getKey())) {
                agreements.add(new TableAgreement(name, -1, 0, new ArrayList<>(new TreeSet<>(topic.getValue().keySet())), 0, List.of()));
                continue;
            }
            Table table = catalog.catalog().loadTable(catalog.identifier(topic.getKey()));
            Set<String> listed = new TreeSet<>();
            if (table.currentSnapshot() != null) {
                try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
                    tasks.forEach(t -> listed.add(t.file().location()));
                }
            }
            long lastAppend = TablePositions.of(table).lastAppendMillis().orElse(Long.MIN_VALUE);
            List<String> lacking = new ArrayList<>();
            int inFlight = 0;
            for (Map.Entry<String, Long> file : new TreeMap<>(topic.getValue()).entrySet()) {
                if (!listed.contains(file.getKey())) {
                    if (file.getValue() > lastAppend) {
                        inFlight++;
                    } else {
                        lacking.add(file.getKey());
                    }
                }
            }
            List<String> extra = listed.stream().filter(f -> !topic.getValue().containsKey(f)).toList();
            agreements.add(new TableAgreement(name, table.currentSnapshot() == null ? -1 : table.currentSnapshot().snapshotId(),
                    listed.size(), lacking, inFlight, extra));
        }
        return agreements;
    }
}
