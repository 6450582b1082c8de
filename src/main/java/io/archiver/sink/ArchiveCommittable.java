package io.archiver.sink;

import io.archiver.sink.files.FileStats;

import org.apache.flink.connector.file.sink.FileSinkCommittable;

import javax.annotation.Nullable;

import java.util.Objects;

/**
 * A file sink committable plus what the archiver knows about it: for a pending part file, the offsets it
 * holds ({@code stats}) and the checkpoint that made it pending. Committables restored from savepoints of
 * versions before these fields existed have neither.
 */
public record ArchiveCommittable(FileSinkCommittable file, @Nullable FileStats stats, long checkpointId) {

    /** Checkpoint id of committables whose checkpoint is not known (restored from an older version). */
    public static final long UNKNOWN_CHECKPOINT = -1;

    public ArchiveCommittable {
        Objects.requireNonNull(file, "file");
    }

    ArchiveCommittable withCheckpoint(long id) {
        return new ArchiveCommittable(file, stats, id);
    }
}
