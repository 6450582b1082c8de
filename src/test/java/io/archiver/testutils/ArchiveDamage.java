package io.archiver.testutils;

import io.archiver.archive.ArchiveFile;
import io.archiver.archive.ArchiveFileReader;
import io.archiver.format.FileFormats;
import io.archiver.config.ArchiverConfig;
import io.archiver.config.SinkLayout;
import io.archiver.format.FileFormat;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;

import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Damages an archive as operators, tools and faults do: a file deleted, a file copied, a file's content altered. */
public final class ArchiveDamage {

    private ArchiveDamage() {}

    /**
     * A file of the partition that is neither its first nor its last, nor, in the per-topic layout, the first or
     * last of any other partition it holds: deleting it opens a hole inside every partition it holds. (A file that
     * held another partition's first records would cut that partition's head instead, which no audit can tell from
     * an archive that began later.)
     */
    public static ArchiveFile middleFile(List<ArchiveFile> files, int partition) throws Exception {
        ArchiveFileReader reader = new ArchiveFileReader(PayloadFormats.BYTES);
        Map<Integer, List<ArchiveFile>> byPartition = new HashMap<>();
        Map<ArchiveFile, Long> firstOffset = new HashMap<>();
        for (ArchiveFile f : files) {
            List<Long> offsets = new ArrayList<>();
            f.offsets(reader, offsets::add);
            firstOffset.put(f, offsets.get(0));
            byPartition.computeIfAbsent(f.partition(), p -> new ArrayList<>()).add(f);
        }
        Set<String> ends = new HashSet<>();
        byPartition.values().forEach(ofPartition -> {
            ofPartition.sort(Comparator.comparing(firstOffset::get));
            ends.add(ofPartition.get(0).path().toString());
            ends.add(ofPartition.get(ofPartition.size() - 1).path().toString());
        });
        List<ArchiveFile> ofPartition = byPartition.getOrDefault(partition, List.of());
        assertThat(ofPartition).as("files of partition " + partition).hasSizeGreaterThan(2);
        return ofPartition.stream().filter(f -> !ends.contains(f.path().toString())).findFirst()
                .orElseThrow(() -> new AssertionError("no file of partition " + partition + " lies inside every partition it holds: " + ofPartition));
    }

    /** Copies a file byte for byte. */
    public static void copy(Path from, Path to) throws Exception {
        FileSystem fs = from.getFileSystem();
        try (FSDataInputStream in = fs.open(from); FSDataOutputStream out = fs.create(to, FileSystem.WriteMode.NO_OVERWRITE)) {
            in.transferTo(out);
        }
    }

    /** Writes {@code records} over {@code file}, in its own format, as the configuration writes that format (a corrupted object). */
    public static void rewrite(ArchiverConfig config, Path file, List<ArchiveRecord> records) throws Exception {
        FileFormat format = FileFormats.ofFile(file.getName()).orElseThrow();
        FileSystem fs = file.getFileSystem();
        try (FSDataOutputStream out = fs.create(file, FileSystem.WriteMode.OVERWRITE)) {
            BulkWriter<ArchiveRecord> writer = format.writer(config, SinkLayout.PER_PARTITION).create(out);
            for (ArchiveRecord r : records) {
                writer.addElement(r);
            }
            writer.finish();
        }
    }
}
