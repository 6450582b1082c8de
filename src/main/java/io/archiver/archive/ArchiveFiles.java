package io.archiver.archive;

import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The one way to find the files an archive holds: audit, repair, restore, cleanup and the verifier ask it, never
 * list folders themselves. Each file comes with its topic and partition ({@link ArchiveFile}; its offsets are read
 * through its format). The first implementation lists the archive's folders ({@link #listed}); another source of the
 * same answer (a table's current snapshot: {@code table.TableArchiveFiles}) or a filter on it (records erased since) is another implementation, and
 * the readers do not change.
 */
public interface ArchiveFiles {

    /** The archive these are the files of. */
    ArchiveRoot root();

    /** The files the archive holds now: committed data files, by topic, partition and path, and leftovers. */
    ArchiveListing list() throws IOException;

    /**
     * The committed files, of the partitions {@code ids} ({@code topic-partition}), of a listing taken after
     * {@code earlier}, for those partitions only that have a committed file {@code earlier} lacks; empty when none
     * has. A folder listing is not one moment's view: it pages through the folders while commits go on, and may
     * show a later file of a partition without an earlier one committed meanwhile, so a reader that finds a gap asks
     * this before it reports one. A source that answers for one moment (a table snapshot) has nothing to add.
     */
    default ArchiveListing committedWhileListed(ArchiveListing earlier, Set<String> ids) throws IOException {
        Set<String> listed = new HashSet<>();
        earlier.committed().forEach(f -> listed.add(f.path().toString()));
        ArchiveListing later = list();
        Set<String> grown = new HashSet<>();
        for (ArchiveFile f : later.committed()) {
            String id = VerificationReport.id(f.topic(), f.partition());
            if (ids.contains(id) && !listed.contains(f.path().toString())) {
                grown.add(id);
            }
        }
        return grown.isEmpty() ? new ArchiveListing(List.of(), List.of()) : later.committedOf(grown);
    }

    /** The files under {@code root}, found by listing its folders ({@link ArchiveScanner}). */
    static ArchiveFiles listed(ArchiveRoot root) {
        return new ArchiveFiles() {
            @Override
            public ArchiveRoot root() {
                return root;
            }

            @Override
            public ArchiveListing list() throws IOException {
                return ArchiveScanner.scan(root.uri());
            }
        };
    }
}
