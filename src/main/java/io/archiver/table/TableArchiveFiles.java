package io.archiver.table;

import io.archiver.archive.ArchiveFile;
import io.archiver.archive.ArchiveFileReader;
import io.archiver.archive.ArchiveFiles;
import io.archiver.archive.ArchiveListing;
import io.archiver.archive.ArchiveRoot;
import io.archiver.config.ArchiverConfig;
import io.archiver.fs.IoThreads;
import io.archiver.record.PayloadFormats;

import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The files of an archive with tables, as its tables say: of each topic with a table, the files its current snapshot
 * lists, and the committed files after the offsets it holds (the next snapshot's: committed, not appended yet). The
 * files a compaction replaced (until {@code table expire} removes them: its retained snapshots say so) and the outputs
 * of a compaction or repair cut short before its table commit (their names say so) are in the folders too, below the
 * table's offsets and not listed: never read, so no reader sees a record twice. Any other file below the table's
 * offsets that it does not list is read (and {@code audit} reports the table lacking it): nothing is hidden that the
 * table does not show to be redundant. Topics without a table are read from their folders.
 *
 * <p>The tables are read before the folders are listed: a compaction that commits in between leaves its outputs
 * unread (below, not in the state read) and its inputs read, as the state read lists them; they stay until
 * an expiry that keeps every snapshot younger than its retention.
 */
public final class TableArchiveFiles implements ArchiveFiles {

    private final ArchiveFiles folders;
    private final TableSettings settings;

    private TableArchiveFiles(ArchiveFiles folders, TableSettings settings) {
        this.folders = folders;
        this.settings = settings;
    }

    /** The files of the archive a configuration writes: through its tables when it has some ({@code table.format}). */
    public static ArchiveFiles of(ArchiverConfig config) {
        ArchiveRoot root = ArchiveRoot.of(config);
        Optional<TableSettings> settings = TableSettings.of(config);
        return settings.isEmpty() ? ArchiveFiles.listed(root) : of(root, settings.get());
    }

    /** The files under {@code root} through the tables of {@code settings}. */
    public static ArchiveFiles of(ArchiveRoot root, TableSettings settings) {
        return new TableArchiveFiles(ArchiveFiles.listed(root), settings);
    }

    @Override
    public ArchiveRoot root() {
        return folders.root();
    }

    @Override
    public ArchiveListing list() throws IOException {
        ExecutorService pool = Executors.newFixedThreadPool(4, IoThreads.daemon("table-files"));
        try (ArchiveCatalog catalog = ArchiveCatalog.open(settings)) {
            Map<String, TableState> tables = new HashMap<>();
            for (String topic : root().topics()) {
                if (catalog.exists(topic)) {
                    tables.put(topic, TableState.current(catalog.catalog().loadTable(catalog.identifier(topic)), pool));
                }
            }
            ArchiveListing listed = folders.list();
            return through(tables, listed);
        } finally {
            pool.shutdownNow();
        }
    }

    /** {@code listed} as the tables' {@code states} say, by topic (topics without a table as listed). */
    static ArchiveListing through(Map<String, TableState> states, ArchiveListing listed) throws IOException {
        ArchiveFileReader reader = new ArchiveFileReader(PayloadFormats.BYTES);
        Set<String> unread = new HashSet<>();
        for (Map.Entry<String, List<ArchiveFile>> file : ArchiveFile.byPath(listed.committed()).entrySet()) {
            TableState state = states.get(file.getValue().get(0).topic());
            if (state != null && !state.lists(file.getKey()) && state.below(file.getValue(), reader)
                    && (state.replaced(file.getKey()) || TableState.isMaintenanceOutput(file.getKey()))) {
                unread.add(file.getKey());
            }
        }
        return unread.isEmpty() ? listed : listed.keeping(f -> !unread.contains(f.path().toString()));
    }
}
