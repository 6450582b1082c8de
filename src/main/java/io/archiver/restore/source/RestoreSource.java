package io.archiver.restore.source;

import io.archiver.restore.plan.RestoreSelection;
import io.archiver.restore.ledger.RestoreProgress;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;

import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The restore's input: the plan's partitions, each a split ({@link RestoreSplit}) handed out by {@link
 * RestoreSplitEnumerator} and read unit by unit by {@link RestoreSourceReader}. Bounded: the job ends when every
 * partition is read and its records committed.
 */
public final class RestoreSource implements Source<ArchiveRecord, RestoreSplit, Collection<RestoreSplit>> {

    private static final long serialVersionUID = 1L;

    private final PayloadFormats formats;
    private final RestoreSelection selection;
    private final RestoreProgress progress;
    private final List<RestoreSplit> partitions;

    public RestoreSource(PayloadFormats formats, RestoreSelection selection, RestoreProgress progress, List<RestoreSplit> partitions) {
        this.formats = formats;
        this.selection = selection;
        this.progress = progress;
        this.partitions = new ArrayList<>(partitions);
    }

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.BOUNDED;
    }

    @Override
    public SourceReader<ArchiveRecord, RestoreSplit> createReader(SourceReaderContext context) {
        return new RestoreSourceReader(context, formats, selection, progress);
    }

    @Override
    public SplitEnumerator<RestoreSplit, Collection<RestoreSplit>> createEnumerator(SplitEnumeratorContext<RestoreSplit> context) {
        return new RestoreSplitEnumerator(context, partitions);
    }

    @Override
    public SplitEnumerator<RestoreSplit, Collection<RestoreSplit>> restoreEnumerator(
            SplitEnumeratorContext<RestoreSplit> context, Collection<RestoreSplit> unassigned) {
        return new RestoreSplitEnumerator(context, unassigned);
    }

    @Override
    public SimpleVersionedSerializer<RestoreSplit> getSplitSerializer() {
        return RestoreSplit.Serializer.INSTANCE;
    }

    @Override
    public SimpleVersionedSerializer<Collection<RestoreSplit>> getEnumeratorCheckpointSerializer() {
        return new UnassignedSerializer();
    }

    /** The enumerator's checkpoint: the partitions not handed out yet. */
    private static final class UnassignedSerializer implements SimpleVersionedSerializer<Collection<RestoreSplit>> {

        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(Collection<RestoreSplit> splits) throws IOException {
            DataOutputSerializer out = new DataOutputSerializer(1024);
            out.writeInt(splits.size());
            for (RestoreSplit split : splits) {
                RestoreSplit.Serializer.write(split, out);
            }
            return out.getCopyOfBuffer();
        }

        @Override
        public Collection<RestoreSplit> deserialize(int version, byte[] serialized) throws IOException {
            if (version != 1) {
                throw new IOException("Unknown version of a restore's unassigned partitions: " + version);
            }
            DataInputDeserializer in = new DataInputDeserializer(serialized);
            int count = in.readInt();
            List<RestoreSplit> splits = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                splits.add(RestoreSplit.Serializer.read(in));
            }
            return splits;
        }
    }
}
