package io.archiver.audit;

import io.archiver.record.PayloadFormats;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Per-partition counts of the committed archive under a root, read from every data file. */
public final class ArchiveSummary {

    private final Map<String, PartitionSummary> partitions;

    private ArchiveSummary(Map<String, PartitionSummary> partitions) {
        this.partitions = partitions;
    }

    public static ArchiveSummary read(String root, PayloadFormats formats) throws IOException {
        Map<String, PartitionSummary> partitions = new TreeMap<>();
        ArchiveFileReader reader = new ArchiveFileReader(formats);
        for (ArchiveFile file : ArchiveScanner.committedFiles(root)) {
            String id = file.topic() + "-" + String.format("%06d", file.partition());
            PartitionSummary summary =
                    partitions.computeIfAbsent(id, k -> new PartitionSummary(file.topic(), file.partition()));
            summary.addFile(file.size());
            reader.read(file.path(), r -> summary.addRecord(r.getOffset()));
        }
        return new ArchiveSummary(partitions);
    }

    public List<PartitionSummary> partitions() {
        return new ArrayList<>(partitions.values());
    }

    public long records() {
        return partitions.values().stream().mapToLong(PartitionSummary::records).sum();
    }

    public long files() {
        return partitions.values().stream().mapToLong(PartitionSummary::files).sum();
    }

    public long bytes() {
        return partitions.values().stream().mapToLong(PartitionSummary::bytes).sum();
    }
}
