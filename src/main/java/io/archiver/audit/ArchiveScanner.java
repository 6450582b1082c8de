package io.archiver.audit;

import io.archiver.format.ArchiveLayout;

import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Lists an archive root, walking the {@link ArchiveLayout} folders. Hidden folders at the top
 * ({@code _archiver}, {@code _dead-letter}, ...) are not walked; hidden entries inside data folders are
 * reported as leftovers, not data.
 */
public final class ArchiveScanner {

    private ArchiveScanner() {}

    public static ArchiveListing scan(String root) throws IOException {
        Path rootPath = new Path(root);
        FileSystem fs = rootPath.getFileSystem();
        List<ArchiveFile> committed = new ArrayList<>();
        List<ArchiveFile> leftovers = new ArrayList<>();
        walk(fs, rootPath, false, committed, leftovers);
        committed.sort(Comparator.comparing(f -> f.path().toString()));
        leftovers.sort(Comparator.comparing(f -> f.path().toString()));
        return new ArchiveListing(committed, leftovers);
    }

    public static List<ArchiveFile> committedFiles(String root) throws IOException {
        return scan(root).committed();
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
                ArchiveLayout.partitionOf(entry.getPath().toUri().getPath())
                        .ifPresent(tp -> target.add(new ArchiveFile(
                                entry.getPath(), entry.getLen(), tp.topic(), tp.partition(), entry.getModificationTime())));
            }
        }
    }
}
