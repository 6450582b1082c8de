package io.archiver.testutils;

import io.archiver.archive.ArchiveFile;
import io.archiver.archive.ArchiveFiles;
import io.archiver.archive.ArchiveRoot;
import io.archiver.archive.ArchiveFileReader;
import io.archiver.record.PayloadFormats;

import java.util.HashMap;
import java.util.Map;

/**
 * Counts the committed records of an archive as it grows. Committed files never change, so each file is
 * counted once and later polls only list the folders and open the new files.
 */
public final class ArchiveCounter {

    private final String root;
    private final ArchiveFileReader reader;
    private final Map<String, Long> counted = new HashMap<>();

    public ArchiveCounter(String root, PayloadFormats formats) {
        this.root = root;
        this.reader = new ArchiveFileReader(formats);
    }

    public synchronized long count() throws Exception {
        long total = 0;
        for (ArchiveFile file : ArchiveFiles.listed(ArchiveRoot.of(root)).list().committed()) {
            Long n = counted.get(file.toString());
            if (n == null) {
                n = file.shared() ? file.offsetStatistics(reader)[2] : reader.count(file.path());
                counted.put(file.toString(), n);
            }
            total += n;
        }
        return total;
    }
}
