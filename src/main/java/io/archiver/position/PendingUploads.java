package io.archiver.position;

import io.archiver.archive.ArchiveRoot;
import io.archiver.fs.FileSystemContext;

import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.Path;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.functions.sink.filesystem.BucketWriter;
import org.apache.flink.streaming.api.functions.sink.filesystem.BulkBucketWriter;
import org.apache.flink.streaming.api.functions.sink.filesystem.InProgressFileWriter.PendingFileRecoverable;
import org.apache.flink.util.TemporaryClassLoaderContext;

import java.io.IOException;
import java.io.Serializable;

/**
 * The pending uploads of part files as position records keep them ({@link PositionRecord.PendingFile}): the
 * archive file system's own commit handle, serialized, so that a start without state can complete a commit
 * that a stop cut short.
 */
public final class PendingUploads implements Serializable {

    private static final long serialVersionUID = 1L;

    private final ArchiveRoot root;
    private transient BucketWriter<?, ?> uploads;

    /** The uploads of files under {@code root}. */
    public PendingUploads(ArchiveRoot root) {
        this.root = root;
    }

    /**
     * The position record's entry of a pending part file holding offsets {@code first..last} ({@code records} of
     * them): its path, size and serialized upload.
     */
    public PositionRecord.PendingFile pendingFile(PendingFileRecoverable pending, long first, long last, long records)
            throws IOException {
        SimpleVersionedSerializer<PendingFileRecoverable> serializer = uploadSerializer();
        return new PositionRecord.PendingFile(
                pending.getPath().toString(), first, last, records, pending.getSize(), serializer.getVersion(),
                serializer.serialize(pending));
    }

    /** Completes the commit of {@code file}'s upload, making it visible. */
    void complete(PositionRecord.PendingFile file) throws IOException {
        Path path = new Path(file.path());
        PendingFileRecoverable pending = uploadSerializer().deserialize(file.uploadVersion(), file.upload());
        // S3A tidies up after the commit on a pool thread that it may start: see FileSystemContext.
        try (TemporaryClassLoaderContext ignored = FileSystemContext.of(path).enter()) {
            uploads().recoverPendingFile(pending).commitAfterRecovery();
        }
    }

    @SuppressWarnings("unchecked")
    private SimpleVersionedSerializer<PendingFileRecoverable> uploadSerializer() throws IOException {
        return (SimpleVersionedSerializer<PendingFileRecoverable>) uploads().getProperties().getPendingFileRecoverableSerializer();
    }

    private synchronized BucketWriter<?, ?> uploads() throws IOException {
        if (uploads == null) {
            BulkWriter.Factory<Object> unused = out -> {
                throw new UnsupportedOperationException("position store never writes part files");
            };
            uploads = new BulkBucketWriter<>(root.path().getFileSystem().createRecoverableWriter(), unused);
        }
        return uploads;
    }
}
