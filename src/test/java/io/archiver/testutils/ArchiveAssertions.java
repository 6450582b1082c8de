package io.archiver.testutils;

import io.archiver.archive.ArchiveFile;
import io.archiver.archive.ArchiveFiles;
import io.archiver.archive.ArchiveRoot;
import io.archiver.archive.ArchiveVerifier;
import io.archiver.archive.VerificationReport;
import io.archiver.archive.ArchiveFileReader;
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
        return archived(ArchiveFiles.listed(ArchiveRoot.of(root)), formats);
    }

    /** Every record of the committed files {@code files} names. */
    public static List<ArchiveRecord> archived(ArchiveFiles files, PayloadFormats formats) throws Exception {
        ArchiveFileReader reader = new ArchiveFileReader(formats);
        List<ArchiveRecord> out = new ArrayList<>();
        for (ArchiveFile file : files.list().committed()) {
            file.read(reader, out::add);
        }
        return out;
    }

    /** Archived records the truth lacks and holds no later record of their key for (so compaction did not remove them). */
    private static Map<String, List<Long>> notCompactedAway(
            List<ArchiveRecord> archived, List<ArchiveRecord> truth, Map<String, ArchiveRecord> expected) {
        Map<String, Long> lastOfKey = new HashMap<>();
        for (ArchiveRecord r : truth) {
            lastOfKey.merge(keyOf(r), r.getOffset(), Math::max);
        }
        Map<String, List<Long>> unexpected = new TreeMap<>();
        for (ArchiveRecord r : archived) {
            Long last = lastOfKey.get(keyOf(r));
            if (!expected.containsKey(r.toString()) && (last == null || last <= r.getOffset())) {
                unexpected.computeIfAbsent(VerificationReport.id(r.getTopic(), r.getPartition()), k -> new ArrayList<>()).add(r.getOffset());
            }
        }
        return unexpected;
    }

    private static String keyOf(ArchiveRecord r) {
        return r.getTopic() + "-" + r.getPartition() + "/" + (r.getKey() == null ? "null" : java.util.Base64.getEncoder().encodeToString(r.getKey()));
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
        return assertExactlyOnce(root, formats, produced, false);
    }

    /**
     * {@link #assertExactlyOnce(String, PayloadFormats, List)}; with {@code compacted}, archived records that the
     * truth lacks are allowed when the truth holds a later record of their key in their partition: compaction
     * removed them from Kafka after they were archived, and the archive keeps that history.
     */
    public static VerificationReport assertExactlyOnce(String root, PayloadFormats formats, List<ArchiveRecord> produced,
            boolean compacted) throws Exception {
        return assertExactlyOnce(SharedStack.get().verifier(formats), formats, root, produced, compacted);
    }

    /** {@link #assertExactlyOnce(String, PayloadFormats, List, boolean)} with {@code verifier} (of {@code formats}). */
    public static VerificationReport assertExactlyOnce(ArchiveVerifier verifier, PayloadFormats formats, String root,
            List<ArchiveRecord> produced, boolean compacted) throws Exception {
        return assertExactlyOnce(verifier, formats, ArchiveFiles.listed(ArchiveRoot.of(root)), produced, compacted);
    }

    /** {@link #assertExactlyOnce(String, PayloadFormats, List)} of the archive as {@code files} presents it (through its tables). */
    public static VerificationReport assertExactlyOnce(ArchiveFiles files, PayloadFormats formats, List<ArchiveRecord> produced)
            throws Exception {
        return assertExactlyOnce(SharedStack.get().verifier(formats), formats, files, produced, false);
    }

    private static VerificationReport assertExactlyOnce(ArchiveVerifier verifier, PayloadFormats formats, ArchiveFiles files,
            List<ArchiveRecord> produced, boolean compacted) throws Exception {
        VerificationReport report = verifier.verify(files);
        Map<String, List<Long>> expectedOffsets = new TreeMap<>();
        Map<String, ArchiveRecord> expected = new HashMap<>();
        for (ArchiveRecord r : produced) {
            expectedOffsets.computeIfAbsent(VerificationReport.id(r.getTopic(), r.getPartition()), k -> new ArrayList<>())
                    .add(r.getOffset());
            expected.put(r.toString(), r);
        }
        ExpectedOffsets comparison = ExpectedOffsets.compare(report, expectedOffsets);
        assertThat(comparison.missing()).as("produced offsets missing from the archive").isEmpty();
        Map<String, Object> duplicates = new TreeMap<>();
        report.partitions().forEach((id, p) -> {
            if (!p.duplicates().isEmpty()) {
                duplicates.put(id, p.duplicates());
            }
        });
        assertThat(duplicates).as("offsets archived more than once").isEmpty();
        List<ArchiveRecord> archived = archived(files, formats);
        Map<String, List<Long>> unexpected = compacted ? notCompactedAway(archived, produced, expected) : comparison.unexpected();
        assertThat(unexpected).as("archived offsets never produced" + (compacted ? " (nor compacted away since)" : "")).isEmpty();
        List<String> different = new ArrayList<>();
        for (ArchiveRecord r : archived) {
            ArchiveRecord truth = expected.get(r.toString());
            if (truth == null ? !compacted : !r.equals(truth)) {
                different.add(r.toString());
            }
        }
        assertThat(different).as("archived records whose content differs from what was produced").isEmpty();
        return report;
    }
}
