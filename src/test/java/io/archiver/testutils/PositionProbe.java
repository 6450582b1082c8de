package io.archiver.testutils;

import io.archiver.archive.ArchiveRoot;
import io.archiver.position.ArchivePositions;
import io.archiver.position.PositionRecord;
import io.archiver.position.PositionStore;

import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;
import org.apache.kafka.common.TopicPartition;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** Reads an archive's position records to see which files the last commits listed and which are visible. */
public final class PositionProbe {

    private final PositionStore store;
    private final String topic;
    private final int partitions;

    public PositionProbe(String root, String topic, int partitions) {
        this.store = new PositionStore(ArchiveRoot.of(root));
        this.topic = topic;
        this.partitions = partitions;
    }

    public List<PositionRecord> records() throws IOException {
        ArchivePositions positions = store.read();
        List<PositionRecord> records = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            positions.record(new TopicPartition(topic, p)).ifPresent(records::add);
        }
        return records;
    }

    /** The names of the archive's positions objects (one per committer subtask that has committed). */
    public List<String> positionObjects() throws IOException {
        Path folder = store.subtaskPath(0).getParent();
        List<String> names = new ArrayList<>();
        if (folder.getFileSystem().exists(folder)) {
            for (FileStatus f : folder.getFileSystem().listStatus(folder)) {
                names.add(f.getPath().getName());
            }
        }
        return names;
    }

    /** Files the position records list that are not visible (each once): commits that were cut short. */
    public List<String> uncommittedFiles() throws IOException {
        Set<String> missing = new LinkedHashSet<>();
        for (PositionRecord r : records()) {
            for (PositionRecord.PendingFile f : r.files()) {
                if (!exists(f.path())) {
                    missing.add(f.path());
                }
            }
        }
        return new ArrayList<>(missing);
    }

    /**
     * True if some checkpoint's files are partly visible: at least one of them committed and at least one
     * not, the commit cut short in the middle of a checkpoint. A record whose commit completed lists no files
     * (settled) and counts as committed.
     */
    public boolean checkpointPartlyCommitted() throws IOException {
        List<PositionRecord> records = records();
        for (PositionRecord r : records) {
            if (!anyMissing(r)) {
                continue;
            }
            for (PositionRecord other : records) {
                if (other.checkpointId() == r.checkpointId() && (other.files().isEmpty() || anyVisible(other))) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean anyMissing(PositionRecord r) throws IOException {
        for (PositionRecord.PendingFile f : r.files()) {
            if (!exists(f.path())) {
                return true;
            }
        }
        return false;
    }

    private static boolean anyVisible(PositionRecord r) throws IOException {
        for (PositionRecord.PendingFile f : r.files()) {
            if (exists(f.path())) {
                return true;
            }
        }
        return false;
    }

    private static boolean exists(String path) throws IOException {
        Path p = new Path(path);
        return p.getFileSystem().exists(p);
    }
}
