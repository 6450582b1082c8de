package io.archiver.sink;

import io.archiver.sink.files.FileStats;

import org.apache.flink.connector.file.sink.FileSinkCommittable;

import java.util.List;
import java.util.Objects;

/**
 * A file sink committable plus what the archiver knows about it: for a pending part file, the offsets it
 * holds of each partition ({@code stats}, ordered by partition) and the checkpoint that made it pending.
 * Committables restored from savepoints of versions before these fields existed have neither (no stats).
 */
public record ArchiveCommittable(FileSinkCommittable file, List<FileStats> stats, long checkpointId) {

    /** Checkpoint id of committables whose checkpoint is not known (restored from an older version). */
    public static final long UNKNOWN_CHECKPOINT = -1;

    public ArchiveCommittable {
        Objects.requireNonNull(file, "file");
        stats = List.copyOf(stats);
    }

    ArchiveCommittable withCheckpoint(long id) {
        return new ArchiveCommittable(file, stats, id);
    }
}
