package io.archiver.sink;

import io.archiver.sink.files.FileStats;
import org.apache.flink.connector.file.sink.FileSinkCommittable;
import org.apache.flink.core.io.SimpleVersionedSerialization;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Serializes {@link ArchiveCommittable}s. Versions below {@link #SINGLE_PARTITION} are plain {@link
 * FileSinkCommittable}s, as written by archiver 0.1.0 (whose sink was a bare {@code FileSink}); savepoints
 * of that version therefore restore, their committables without statistics. {@link #SINGLE_PARTITION} has the
 * statistics of one partition, {@link #PER_PARTITION} of each partition in the file, {@link #VERSION} also the leader
 * epoch of each partition's last record.
 */
final class ArchiveCommittableSerializer implements SimpleVersionedSerializer<ArchiveCommittable> {

    static final int SINGLE_PARTITION = 100;
    static final int PER_PARTITION = 101;
    static final int VERSION = 102;

    private final SimpleVersionedSerializer<FileSinkCommittable> files;

    ArchiveCommittableSerializer(SimpleVersionedSerializer<FileSinkCommittable> files) {
        this.files = files;
    }

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(ArchiveCommittable c) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        SimpleVersionedSerialization.writeVersionAndSerialize(files, c.file(), out);
        out.writeLong(c.checkpointId());
        out.writeInt(c.stats().size());
        for (FileStats stats : c.stats()) {
            out.writeUTF(stats.topic());
            out.writeInt(stats.partition());
            out.writeLong(stats.firstOffset());
            out.writeLong(stats.lastOffset());
            out.writeLong(stats.records());
            out.writeInt(stats.lastLeaderEpoch());
        }
        return out.getCopyOfBuffer();
    }

    @Override
    public ArchiveCommittable deserialize(int version, byte[] serialized) throws IOException {
        if (version < SINGLE_PARTITION) {
            return new ArchiveCommittable(files.deserialize(version, serialized), List.of(), ArchiveCommittable.UNKNOWN_CHECKPOINT);
        }
        if (version > VERSION) {
            throw new IOException("Unknown archive committable version " + version + " (this archiver reads up to " + VERSION + ")");
        }
        DataInputDeserializer in = new DataInputDeserializer(serialized);
        FileSinkCommittable file = SimpleVersionedSerialization.readVersionAndDeSerialize(files, in);
        long checkpoint = in.readLong();
        int count = version == SINGLE_PARTITION ? (in.readBoolean() ? 1 : 0) : in.readInt();
        List<FileStats> stats = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            stats.add(new FileStats(in.readUTF(), in.readInt(), in.readLong(), in.readLong(), in.readLong(),
                    version >= VERSION ? in.readInt() : -1));
        }
        return new ArchiveCommittable(file, stats, checkpoint);
    }
}
