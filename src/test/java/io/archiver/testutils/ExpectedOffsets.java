package io.archiver.testutils;

import io.archiver.archive.PartitionReport;
import io.archiver.archive.VerificationReport;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** An archive's offsets held against those that must be in it (keyed by {@code topic-partition}). */
public record ExpectedOffsets(Map<String, List<Long>> missing, Map<String, List<Long>> unexpected) {

    /** Which expected offsets the archive lacks, and which it holds without their being expected. */
    public static ExpectedOffsets compare(VerificationReport archive, Map<String, ? extends Collection<Long>> expected) {
        Map<String, List<Long>> missing = new TreeMap<>();
        Map<String, List<Long>> unexpected = new TreeMap<>();
        expected.forEach((id, offsets) -> {
            PartitionReport report = archive.partitions().get(id);
            for (long offset : offsets) {
                if (report == null || !report.contains(offset)) {
                    missing.computeIfAbsent(id, k -> new ArrayList<>()).add(offset);
                }
            }
        });
        archive.partitions().forEach((id, report) -> {
            Collection<Long> want = expected.get(id);
            Set<Long> wanted = want == null ? Set.of() : new HashSet<>(want);
            for (long offset : report.offsets()) {
                if (!wanted.contains(offset)) {
                    unexpected.computeIfAbsent(id, k -> new ArrayList<>()).add(offset);
                }
            }
        });
        return new ExpectedOffsets(missing, unexpected);
    }

    public long missingCount() {
        return missing.values().stream().mapToLong(List::size).sum();
    }

    public long unexpectedCount() {
        return unexpected.values().stream().mapToLong(List::size).sum();
    }
}
