package io.archiver.archive;

import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/** The files under an archive root: committed data files, and hidden leftovers inside data folders. */
public final class ArchiveListing {

    private final List<ArchiveFile> committed;
    private final List<ArchiveFile> leftovers;

    ArchiveListing(List<ArchiveFile> committed, List<ArchiveFile> leftovers) {
        this.committed = Collections.unmodifiableList(committed);
        this.leftovers = Collections.unmodifiableList(leftovers);
    }

    /** Visible data files, by topic, partition and path (a partition's files together). */
    public List<ArchiveFile> committed() {
        return committed;
    }

    /**
     * Hidden entries inside {@code topic=…/partition=…} folders: temporary objects of unfinished S3 uploads
     * ({@code _…_tmp_…}) or in-progress files of other filesystems ({@code .part-…inprogress…}).
     */
    public List<ArchiveFile> leftovers() {
        return leftovers;
    }

    /** This listing with those committed files alone that {@code kept} accepts (another source's view of the same folders). */
    public ArchiveListing keeping(Predicate<ArchiveFile> kept) {
        return new ArchiveListing(committed.stream().filter(kept).toList(), leftovers);
    }

    /** The committed files of the partitions {@code ids} ({@code topic-partition}) alone. */
    public ArchiveListing committedOf(Set<String> ids) {
        return new ArchiveListing(committed.stream().filter(f -> ids.contains(VerificationReport.id(f.topic(), f.partition()))).toList(), List.of());
    }
}
