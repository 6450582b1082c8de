package io.archiver.testutils;

import io.archiver.archive.ArchiveFile;
import io.archiver.archive.ArchiveFileReader;
import io.archiver.record.PayloadFormats;

import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Damages an archive as operators and tools do: a file deleted, a file copied. */
public final class ArchiveDamage {

    private ArchiveDamage() {}

    /**
     * A file of the partition that is neither its first nor its last, so deleting it opens a hole (in the
     * per-topic layout in the other partitions the file holds too).
     */
    public static ArchiveFile middleFile(List<ArchiveFile> files, int partition) throws Exception {
        ArchiveFileReader reader = new ArchiveFileReader(PayloadFormats.BYTES);
        List<ArchiveFile> ofPartition = new ArrayList<>();
        Map<ArchiveFile, Long> firstOffset = new HashMap<>();
        for (ArchiveFile f : files) {
            if (f.partition() == partition) {
                ofPartition.add(f);
                List<Long> offsets = new ArrayList<>();
                f.offsets(reader, offsets::add);
                firstOffset.put(f, offsets.get(0));
            }
        }
        assertThat(ofPartition).as("files of partition " + partition).hasSizeGreaterThan(2);
        ofPartition.sort(Comparator.comparing(firstOffset::get));
        return ofPartition.get(1);
    }

    /** Copies a file byte for byte. */
    public static void copy(Path from, Path to) throws Exception {
        FileSystem fs = from.getFileSystem();
        try (FSDataInputStream in = fs.open(from); FSDataOutputStream out = fs.create(to, FileSystem.WriteMode.NO_OVERWRITE)) {
            in.transferTo(out);
        }
    }
}
