package io.archiver.restore.ledger;

import io.archiver.archive.ArchiveRoot;
import io.archiver.fs.MetadataObjects;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

import java.io.IOException;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * The start objects restores of version 0.1.x wrote under {@code <archive>/_archiver/restores/} instead of a
 * ledger: they name the target partitions such a restore wrote into, not what it wrote, so a restore into one of
 * them that the ledger does not know is refused rather than guessed.
 */
final class LegacyRestoreStarts {

    private static final ObjectMapper JSON = new ObjectMapper();

    private LegacyRestoreStarts() {}

    /** The target partitions ({@code topic-partition}) restores without a ledger began writing into. */
    static Set<String> targetPartitions(ArchiveRoot archive) throws IOException {
        Path folder = archive.legacyRestoreStarts();
        FileSystem fs = folder.getFileSystem();
        Set<String> targets = new HashSet<>();
        if (!fs.exists(folder)) {
            return targets;
        }
        FileStatus[] objects = fs.listStatus(folder);
        for (FileStatus object : objects == null ? new FileStatus[0] : objects) {
            Optional<byte[]> bytes = object.isDir() ? Optional.empty() : MetadataObjects.read(object.getPath());
            if (bytes.isPresent()) {
                JSON.readTree(bytes.get()).path("starts").fieldNames().forEachRemaining(targets::add);
            }
        }
        return targets;
    }
}
