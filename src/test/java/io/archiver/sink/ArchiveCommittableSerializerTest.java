package io.archiver.sink;

import io.archiver.sink.files.FileStats;
import org.apache.flink.connector.file.sink.FileSinkCommittable;
import org.apache.flink.connector.file.sink.FileSinkCommittableSerializer;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.core.fs.RecoverableFsDataOutputStream;
import org.apache.flink.core.fs.RecoverableWriter;
import org.apache.flink.streaming.api.functions.sink.filesystem.BulkBucketWriter;
import org.apache.flink.streaming.api.functions.sink.filesystem.OutputStreamBasedPartFileWriter.OutputStreamBasedPendingFileRecoverable;
import org.apache.flink.streaming.api.functions.sink.filesystem.WriterProperties;
import org.apache.flink.core.io.SimpleVersionedSerialization;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Committables keep their offsets and last leader epoch per partition and checkpoint; committables of earlier versions
 * (without epochs, one partition's offsets) and of archiver 0.1.0 (bare file sink) still restore.
 */
class ArchiveCommittableSerializerTest {

    @TempDir File dir;

    @Test
    void committableWithOffsetsAndCheckpointSurvivesSerialization() throws Exception {
        FileSinkCommittableSerializer files = fileSerializer();
        ArchiveCommittableSerializer serializer = new ArchiveCommittableSerializer(files);
        ArchiveCommittable c = new ArchiveCommittable(pendingFile(),
                List.of(new FileStats("orders", 3, 100, 149, 50, 4), new FileStats("orders", 7, 9, 12, 4, -1)), 42);

        ArchiveCommittable back = serializer.deserialize(serializer.getVersion(), serializer.serialize(c));

        assertThat(back.stats()).isEqualTo(c.stats());
        assertThat(back.checkpointId()).isEqualTo(42);
        assertThat(back.file().getPendingFile().getPath()).isEqualTo(c.file().getPendingFile().getPath());
    }

    @Test
    void bareFileSinkCommittableOfVersionOneRestoresWithoutOffsets() throws Exception {
        FileSinkCommittableSerializer files = fileSerializer();
        FileSinkCommittable legacy = pendingFile();

        ArchiveCommittable back = new ArchiveCommittableSerializer(files).deserialize(files.getVersion(), files.serialize(legacy));

        assertThat(files.getVersion()).isLessThan(ArchiveCommittableSerializer.VERSION);
        assertThat(back.stats()).isEmpty();
        assertThat(back.checkpointId()).isEqualTo(ArchiveCommittable.UNKNOWN_CHECKPOINT);
        assertThat(back.file().getPendingFile().getPath()).isEqualTo(legacy.getPendingFile().getPath());
    }

    @Test
    void committableOfOnePartitionsOffsetsRestoresWithThem() throws Exception {
        FileSinkCommittableSerializer files = fileSerializer();
        FileSinkCommittable file = pendingFile();
        DataOutputSerializer out = new DataOutputSerializer(256);
        SimpleVersionedSerialization.writeVersionAndSerialize(files, file, out);
        out.writeLong(42);
        out.writeBoolean(true);
        out.writeUTF("orders");
        out.writeInt(3);
        out.writeLong(100);
        out.writeLong(149);
        out.writeLong(50);

        ArchiveCommittable back = new ArchiveCommittableSerializer(files)
                .deserialize(ArchiveCommittableSerializer.SINGLE_PARTITION, out.getCopyOfBuffer());

        assertThat(back.stats()).containsExactly(new FileStats("orders", 3, 100, 149, 50));
        assertThat(back.checkpointId()).isEqualTo(42);
    }

    @Test
    void committableOfEachPartitionsOffsetsWithoutLeaderEpochsRestoresWithEpochsUnknown() throws Exception {
        FileSinkCommittableSerializer files = fileSerializer();
        DataOutputSerializer out = new DataOutputSerializer(256);
        SimpleVersionedSerialization.writeVersionAndSerialize(files, pendingFile(), out);
        out.writeLong(42);
        out.writeInt(2);
        for (int partition : new int[] {3, 7}) {
            out.writeUTF("orders");
            out.writeInt(partition);
            out.writeLong(100);
            out.writeLong(149);
            out.writeLong(50);
        }

        ArchiveCommittable back = new ArchiveCommittableSerializer(files)
                .deserialize(ArchiveCommittableSerializer.PER_PARTITION, out.getCopyOfBuffer());

        assertThat(back.stats()).containsExactly(new FileStats("orders", 3, 100, 149, 50, -1), new FileStats("orders", 7, 100, 149, 50, -1));
        assertThat(back.checkpointId()).isEqualTo(42);
    }

    private FileSinkCommittable pendingFile() throws Exception {
        Path target = new Path(new Path(dir.toURI()), "topic=orders/partition=3/part-0.parquet");
        RecoverableFsDataOutputStream out = FileSystem.getLocalFileSystem().createRecoverableWriter().open(target);
        out.write(new byte[] {1, 2, 3});
        RecoverableWriter.CommitRecoverable commit = out.closeForCommit().getRecoverable();
        return new FileSinkCommittable("topic=orders/partition=3", new OutputStreamBasedPendingFileRecoverable(commit, target, 3));
    }

    private static FileSinkCommittableSerializer fileSerializer() throws Exception {
        WriterProperties properties =
                new BulkBucketWriter<>(FileSystem.getLocalFileSystem().createRecoverableWriter(), out -> null).getProperties();
        return new FileSinkCommittableSerializer(
                properties.getPendingFileRecoverableSerializer(), properties.getInProgressFileRecoverableSerializer());
    }
}
