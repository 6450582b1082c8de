package io.archiver.sink;

import io.archiver.record.ArchiveRecord;

import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.connector.file.sink.FileSinkCommittable;
import org.apache.flink.connector.file.sink.writer.FileWriter;
import org.apache.flink.connector.file.sink.writer.FileWriterBucketState;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The file sink's writer, with each pending part file's committable carrying the offsets the file holds
 * (taken from {@link FinishedFiles}). Writing, rolling and state are the file writer's own.
 */
final class ArchiveSinkWriter
        implements StatefulSinkWriter<ArchiveRecord, FileWriterBucketState>,
                CommittingSinkWriter<ArchiveRecord, ArchiveCommittable> {

    private final FileWriter<ArchiveRecord> files;
    private final FinishedFiles finished;

    ArchiveSinkWriter(FileWriter<ArchiveRecord> files, FinishedFiles finished) {
        this.files = files;
        this.finished = finished;
    }

    @Override
    public void write(ArchiveRecord record, Context context) throws IOException, InterruptedException {
        files.write(record, context);
    }

    @Override
    public void flush(boolean endOfInput) throws IOException, InterruptedException {
        files.flush(endOfInput);
    }

    @Override
    public Collection<ArchiveCommittable> prepareCommit() throws IOException, InterruptedException {
        Collection<FileSinkCommittable> pending = files.prepareCommit();
        List<ArchiveCommittable> committables = new ArrayList<>(pending.size());
        for (FileSinkCommittable c : pending) {
            FileStats stats = c.hasPendingFile() ? finished.take(c.getBucketId()) : null;
            committables.add(new ArchiveCommittable(c, stats, ArchiveCommittable.UNKNOWN_CHECKPOINT));
        }
        return committables;
    }

    @Override
    public List<FileWriterBucketState> snapshotState(long checkpointId) throws IOException {
        return files.snapshotState(checkpointId);
    }

    @Override
    public void close() throws Exception {
        files.close();
    }
}
