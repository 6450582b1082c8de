package io.archiver.sink;

import io.archiver.sink.files.FileStats;
import org.apache.flink.connector.file.sink.FileSinkCommittable;

import javax.annotation.Nullable;

import java.util.Objects;

/**
 * A file sink committable plus what the archiver knows about it: for a pending part file, the offsets it
 * holds and the checkpoint that made it pending. Committables restored from savepoints of versions before
 * these fields existed have neither.
 */
public final class ArchiveCommittable {

    /** Checkpoint id of committables whose checkpoint is not known (restored from an older version). */
    public static final long UNKNOWN_CHECKPOINT = -1;

    private final FileSinkCommittable file;
    @Nullable private final FileStats stats;
    private final long checkpointId;

    public ArchiveCommittable(FileSinkCommittable file, @Nullable FileStats stats, long checkpointId) {
        this.file = Objects.requireNonNull(file, "file");
        this.stats = stats;
        this.checkpointId = checkpointId;
    }

    public FileSinkCommittable file() {
        return file;
    }

    @Nullable
    public FileStats stats() {
        return stats;
    }

    public long checkpointId() {
        return checkpointId;
    }

    ArchiveCommittable withCheckpoint(long id) {
        return new ArchiveCommittable(file, stats, id);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ArchiveCommittable)) {
            return false;
        }
        ArchiveCommittable c = (ArchiveCommittable) o;
        return checkpointId == c.checkpointId && file.equals(c.file) && Objects.equals(stats, c.stats);
    }

    @Override
    public int hashCode() {
        return Objects.hash(file, stats, checkpointId);
    }

    @Override
    public String toString() {
        return "ArchiveCommittable{" + file + ", " + stats + ", checkpoint " + checkpointId + "}";
    }
}
