package io.archiver.testutils;

import io.archiver.audit.ArchiveFile;
import io.archiver.audit.ArchiveFileReader;
import io.archiver.audit.ArchiveScanner;
import io.archiver.audit.VerificationReport;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/** Record-by-record checks of a committed archive against what was produced, with the archive verifier. */
public final class ArchiveAssertions {

    private ArchiveAssertions() {}

    /** Every committed record of the archive under {@code root}. */
    public static List<ArchiveRecord> archived(String root, PayloadFormats formats) throws Exception {
        ArchiveFileReader reader = new ArchiveFileReader(formats);
        List<ArchiveRecord> out = new ArrayList<>();
        for (ArchiveFile file : ArchiveScanner.committedFiles(root)) {
            reader.read(file.path(), out::add);
        }
        return out;
    }

    public static int archivedCount(String root, PayloadFormats formats) throws Exception {
        return archived(root, formats).size();
    }

    /**
     * Asserts with the verifier that every produced offset is archived exactly once and nothing else is,
     * then that every archived record has the produced key, value, headers and timestamp.
     */
    public static VerificationReport assertExactlyOnce(String root, PayloadFormats formats, List<ArchiveRecord> produced)
            throws Exception {
        VerificationReport report = SharedStack.get().verifier(formats).verify(root);
        Map<String, List<Long>> expectedOffsets = new TreeMap<>();
        Map<String, ArchiveRecord> expected = new HashMap<>();
        for (ArchiveRecord r : produced) {
            expectedOffsets.computeIfAbsent(VerificationReport.id(r.getTopic(), r.getPartition()), k -> new ArrayList<>())
                    .add(r.getOffset());
            expected.put(r.toString(), r);
        }
        VerificationReport.Comparison comparison = report.compareWith(expectedOffsets);
        assertThat(comparison.missing()).as("produced offsets missing from the archive").isEmpty();
        Map<String, Object> duplicates = new TreeMap<>();
        report.partitions().forEach((id, p) -> {
            if (!p.duplicates().isEmpty()) {
                duplicates.put(id, p.duplicates());
            }
        });
        assertThat(duplicates).as("offsets archived more than once").isEmpty();
        assertThat(comparison.unexpected()).as("archived offsets never produced").isEmpty();
        List<String> different = new ArrayList<>();
        for (ArchiveRecord r : archived(root, formats)) {
            if (!r.equals(expected.get(r.toString()))) {
                different.add(r.toString());
            }
        }
        assertThat(different).as("archived records whose content differs from what was produced").isEmpty();
        return report;
    }
}
