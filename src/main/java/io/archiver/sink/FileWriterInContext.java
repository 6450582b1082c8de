package io.archiver.sink;

import io.archiver.fs.FileSystemContext;

import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.connector.file.sink.FileSinkCommittable;
import org.apache.flink.connector.file.sink.writer.FileWriter;
import org.apache.flink.connector.file.sink.writer.FileWriterBucketState;
import org.apache.flink.util.TemporaryClassLoaderContext;

import java.io.IOException;
import java.util.Collection;
import java.util.List;

/**
 * The file sink's writer with every call run in the archive file system's {@link FileSystemContext}: writing
 * and rolling part files is where the S3 plugin starts its upload threads.
 */
final class FileWriterInContext<IN>
        implements StatefulSinkWriter<IN, FileWriterBucketState>, CommittingSinkWriter<IN, FileSinkCommittable> {

    private final FileWriter<IN> files;
    private final FileSystemContext context;

    FileWriterInContext(FileWriter<IN> files, FileSystemContext context) {
        this.files = files;
        this.context = context;
    }

    @Override
    public void write(IN element, Context elementContext) throws IOException, InterruptedException {
        try (TemporaryClassLoaderContext ignored = context.enter()) {
            files.write(element, elementContext);
        }
    }

    @Override
    public void flush(boolean endOfInput) throws IOException, InterruptedException {
        try (TemporaryClassLoaderContext ignored = context.enter()) {
            files.flush(endOfInput);
        }
    }

    @Override
    public Collection<FileSinkCommittable> prepareCommit() throws IOException {
        try (TemporaryClassLoaderContext ignored = context.enter()) {
            return files.prepareCommit();
        }
    }

    @Override
    public List<FileWriterBucketState> snapshotState(long checkpointId) throws IOException {
        try (TemporaryClassLoaderContext ignored = context.enter()) {
            return files.snapshotState(checkpointId);
        }
    }

    @Override
    public void close() throws Exception {
        try (TemporaryClassLoaderContext ignored = context.enter()) {
            files.close();
        }
    }
}
