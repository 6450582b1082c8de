package io.archiver.archive;

import io.archiver.record.PayloadFormats;

import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Lists an archive root, walking the {@link ArchiveLayout} folders. Hidden folders at the top
 * ({@code _archiver}, {@code _dead-letter}, ...) are not walked; hidden entries inside data folders are
 * reported as leftovers, not data. A file of the per-topic layout (in a topic folder, in no partition folder)
 * is listed once per partition its footer names.
 */
final class ArchiveScanner {

    /** Reads the footers of shared files (payload formats play no part in it). */
    private static final ArchiveFileReader SHARED_FOOTERS = new ArchiveFileReader(PayloadFormats.BYTES);

    private ArchiveScanner() {}

    static ArchiveListing scan(String root) throws IOException {
        Path rootPath = new Path(root);
        FileSystem fs = rootPath.getFileSystem();
        List<ArchiveFile> committed = new ArrayList<>();
        List<ArchiveFile> leftovers = new ArrayList<>();
        walk(fs, rootPath, false, committed, leftovers);
        committed.sort(Comparator.comparing(ArchiveFile::topic).thenComparingInt(ArchiveFile::partition)
                .thenComparing(f -> f.path().toString()));
        leftovers.sort(Comparator.comparing(f -> f.path().toString()));
        return new ArchiveListing(committed, leftovers);
    }

    static List<ArchiveFile> committedFiles(String root) throws IOException {
        return scan(root).committed();
    }

    /**
     * A file of the per-topic layout: a leftover as it is (partition -1), a committed file as one {@link ArchiveFile}
     * per partition its footer names.
     */
    private static void shared(FileStatus entry, String topic, boolean hidden, List<ArchiveFile> target) throws IOException {
        if (hidden) {
            target.add(new ArchiveFile(entry.getPath(), entry.getLen(), topic, -1, entry.getModificationTime()));
            return;
        }
        SHARED_FOOTERS.sharedFilePartitions(entry.getPath()).forEach((p, range) -> target.add(ArchiveFile.shared(
                entry.getPath(), entry.getLen(), topic, p, entry.getModificationTime(), range[0], range[1], range[2])));
    }

    private static void walk(FileSystem fs, Path dir, boolean inData, List<ArchiveFile> committed, List<ArchiveFile> leftovers)
            throws IOException {
        FileStatus[] entries;
        try {
            entries = fs.listStatus(dir);
        } catch (FileNotFoundException e) {
            return;
        }
        if (entries == null) {
            return;
        }
        for (FileStatus entry : entries) {
            String name = entry.getPath().getName();
            boolean hidden = name.startsWith("_") || name.startsWith(".");
            if (entry.isDir()) {
                if (!hidden) {
                    walk(fs, entry.getPath(), inData || name.startsWith("topic="), committed, leftovers);
                }
            } else if (inData && (hidden || ArchiveLayout.isDataFile(name))) {
                List<ArchiveFile> target = hidden ? leftovers : committed;
                String path = entry.getPath().toUri().getPath();
                Optional<ArchiveLayout.TopicPartitionDir> tp = ArchiveLayout.partitionOf(path);
                if (tp.isPresent()) {
                    target.add(new ArchiveFile(entry.getPath(), entry.getLen(), tp.get().topic(), tp.get().partition(),
                            entry.getModificationTime()));
                } else {
                    Optional<String> topic = ArchiveLayout.sharedFileTopic(path);
                    if (topic.isPresent()) {
                        shared(entry, topic.get(), hidden, target);
                    }
                }
            }
        }
    }
}
