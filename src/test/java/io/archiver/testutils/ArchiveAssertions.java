package io.archiver.testutils;

import io.archiver.audit.ArchiveFile;
import io.archiver.audit.ArchiveFileReader;
import io.archiver.audit.ArchiveScanner;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Record-by-record checks of a committed archive against what was produced. */
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
     * Asserts that every produced record is archived exactly once, with the same key, value, headers and
     * timestamp, and that nothing else is archived.
     */
    public static void assertExactlyOnce(String root, PayloadFormats formats, List<ArchiveRecord> produced)
            throws Exception {
        Map<String, ArchiveRecord> expected = new HashMap<>();
        for (ArchiveRecord r : produced) {
            expected.put(id(r), r);
        }
        Map<String, Integer> seen = new HashMap<>();
        List<String> unexpected = new ArrayList<>();
        List<String> different = new ArrayList<>();
        for (ArchiveRecord r : archived(root, formats)) {
            String id = id(r);
            seen.merge(id, 1, Integer::sum);
            ArchiveRecord want = expected.get(id);
            if (want == null) {
                unexpected.add(id);
            } else if (!want.equals(r)) {
                different.add(id);
            }
        }
        List<String> duplicated = new ArrayList<>();
        seen.forEach((id, n) -> {
            if (n > 1) {
                duplicated.add(id + " x" + n);
            }
        });
        List<String> missing = new ArrayList<>();
        for (String id : expected.keySet()) {
            if (!seen.containsKey(id)) {
                missing.add(id);
            }
        }
        assertThat(missing).as("produced offsets missing from the archive").isEmpty();
        assertThat(duplicated).as("offsets archived more than once").isEmpty();
        assertThat(unexpected).as("archived offsets never produced").isEmpty();
        assertThat(different).as("archived records whose content differs from what was produced").isEmpty();
    }

    private static String id(ArchiveRecord r) {
        return r.getTopic() + "-" + r.getPartition() + "@" + r.getOffset();
    }
}
