package io.archiver.archive;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The result of {@link ArchiveVerifier#verify}: per topic partition what the committed archive holds, and
 * what is there but not committed (leftover temporary objects, incomplete multipart uploads).
 */
public final class VerificationReport {

    private final Map<String, PartitionReport> partitions;
    private final Map<String, Long> fileSizes;
    private final List<ArchiveFile> uncommittedFiles;
    private final List<IncompleteUploads.Upload> incompleteUploads;

    /** {@code committed}: the files read (a shared file once per partition it holds). */
    VerificationReport(Map<String, PartitionReport> partitions, List<ArchiveFile> committed, List<ArchiveFile> uncommittedFiles,
            List<IncompleteUploads.Upload> incompleteUploads) {
        this.partitions = Collections.unmodifiableMap(partitions);
        Map<String, Long> sizes = new HashMap<>();
        committed.forEach(f -> sizes.put(f.path().toString(), f.size()));
        this.fileSizes = sizes;
        this.uncommittedFiles = Collections.unmodifiableList(uncommittedFiles);
        this.incompleteUploads = Collections.unmodifiableList(incompleteUploads);
    }

    /**
     * This report with the partitions of {@code replaced} as reported there, and {@code files} (read for them)
     * counted among the committed files.
     */
    public VerificationReport withPartitions(Collection<PartitionReport> replaced, Collection<ArchiveFile> files) {
        Map<String, PartitionReport> merged = new TreeMap<>(partitions);
        replaced.forEach(p -> merged.put(id(p.topic(), p.partition()), p));
        VerificationReport report = new VerificationReport(merged, List.of(), uncommittedFiles, incompleteUploads);
        report.fileSizes.putAll(fileSizes);
        files.forEach(f -> report.fileSizes.put(f.path().toString(), f.size()));
        return report;
    }

    public static String id(String topic, int partition) {
        return topic + "-" + partition;
    }

    /** Reports keyed by {@code topic-partition}, sorted. */
    public Map<String, PartitionReport> partitions() {
        return partitions;
    }

    public PartitionReport partition(String topic, int partition) {
        return partitions.get(id(topic, partition));
    }

    /** Hidden leftovers in data folders: temporary objects of unfinished uploads, in-progress files. */
    public List<ArchiveFile> uncommittedFiles() {
        return uncommittedFiles;
    }

    /** Keys of multipart uploads under the root that were started but never completed or aborted. */
    public List<IncompleteUploads.Upload> incompleteUploads() {
        return incompleteUploads;
    }

    public long records() {
        return partitions.values().stream().mapToLong(PartitionReport::records).sum();
    }

    /** Committed files (one that holds many partitions counts once). */
    public long files() {
        return fileSizes.size();
    }

    /** Bytes of the committed files. */
    public long bytes() {
        return fileSizes.values().stream().mapToLong(Long::longValue).sum();
    }

    public long duplicatedOffsets() {
        return partitions.values().stream().mapToLong(p -> p.duplicates().size()).sum();
    }
}
