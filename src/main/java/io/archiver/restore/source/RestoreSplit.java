package io.archiver.restore.source;

import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * One archived partition of a restore ({@code topic-partition}): its read units in offset order (each the paths of
 * its files, see {@link io.archiver.restore.plan.RestorePlan#readUnits}), the next unit to read, and how far this run has read and how many
 * records it has written ({@code through} null until the first unit is read: then the partition's history says).
 * A partition is one split, read by one reader from its first unit to its last, so its records reach the target
 * in order; the split in a reader's checkpoint says where to go on.
 */
public record RestoreSplit(String partition, List<List<String>> units, int next, Long through, long written) implements SourceSplit, Serializable {

    private static final long serialVersionUID = 1L;

    public RestoreSplit {
        units = List.copyOf(units.stream().map(List::copyOf).toList());
    }

    /** A partition none of whose units this run has read. */
    public static RestoreSplit unread(String partition, List<List<String>> units) {
        return new RestoreSplit(partition, units, 0, null, 0);
    }

    @Override
    public String splitId() {
        return partition;
    }

    boolean finished() {
        return next >= units.size();
    }

    /** After the next unit was read through {@code through}, {@code written} records written in all. */
    RestoreSplit read(Long through, long written) {
        return new RestoreSplit(partition, units, next + 1, through, written);
    }

    /** The form of a split in checkpoints: the reader's state and the enumerator's unassigned splits. */
    static final class Serializer implements SimpleVersionedSerializer<RestoreSplit> {

        static final Serializer INSTANCE = new Serializer();

        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(RestoreSplit split) throws IOException {
            DataOutputSerializer out = new DataOutputSerializer(256);
            write(split, out);
            return out.getCopyOfBuffer();
        }

        @Override
        public RestoreSplit deserialize(int version, byte[] serialized) throws IOException {
            if (version != 1) {
                throw new IOException("Unknown version of a restore split: " + version);
            }
            return read(new DataInputDeserializer(serialized));
        }

        static void write(RestoreSplit split, DataOutputSerializer out) throws IOException {
            out.writeUTF(split.partition());
            out.writeInt(split.units().size());
            for (List<String> unit : split.units()) {
                out.writeInt(unit.size());
                for (String path : unit) {
                    out.writeUTF(path);
                }
            }
            out.writeInt(split.next());
            out.writeBoolean(split.through() != null);
            if (split.through() != null) {
                out.writeLong(split.through());
            }
            out.writeLong(split.written());
        }

        static RestoreSplit read(DataInputDeserializer in) throws IOException {
            String partition = in.readUTF();
            int count = in.readInt();
            List<List<String>> units = new ArrayList<>(count);
            for (int u = 0; u < count; u++) {
                int files = in.readInt();
                List<String> paths = new ArrayList<>(files);
                for (int f = 0; f < files; f++) {
                    paths.add(in.readUTF());
                }
                units.add(paths);
            }
            int next = in.readInt();
            Long through = in.readBoolean() ? in.readLong() : null;
            return new RestoreSplit(partition, units, next, through, in.readLong());
        }
    }
}
