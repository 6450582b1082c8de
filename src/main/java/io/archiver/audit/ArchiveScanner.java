package io.archiver.audit;

import io.archiver.sink.ArchiveLayout;

import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Lists the committed data files under an archive root, walking the {@link ArchiveLayout} folders.
 * Hidden entries ({@code _...}, {@code .…}: metadata, dead letters, Flink's in-progress files) are skipped.
 */
public final class ArchiveScanner {

    private ArchiveScanner() {}

    public static List<ArchiveFile> committedFiles(String root) throws IOException {
        Path rootPath = new Path(root);
        FileSystem fs = rootPath.getFileSystem();
        List<ArchiveFile> out = new ArrayList<>();
        walk(fs, rootPath, out);
        out.sort(Comparator.comparing(f -> f.path().toString()));
        return out;
    }

    private static void walk(FileSystem fs, Path dir, List<ArchiveFile> out) throws IOException {
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
            if (name.startsWith("_") || name.startsWith(".")) {
                continue;
            }
            if (entry.isDir()) {
                walk(fs, entry.getPath(), out);
            } else if (ArchiveLayout.isDataFile(name)) {
                ArchiveLayout.partitionOf(entry.getPath().toUri().getPath())
                        .ifPresent(tp -> out.add(new ArchiveFile(entry.getPath(), entry.getLen(), tp.topic(), tp.partition())));
            }
        }
    }
}
