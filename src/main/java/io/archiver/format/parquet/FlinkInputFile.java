package io.archiver.format.parquet;

import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

import java.io.IOException;

/** A Parquet {@link InputFile} on any Flink filesystem (s3://, file://), so reading needs no Hadoop FS. */
final class FlinkInputFile implements InputFile {

    private final FileSystem fs;
    private final Path path;
    private final long length;

    FlinkInputFile(FileSystem fs, Path path, long length) {
        this.fs = fs;
        this.path = path;
        this.length = length;
    }

    @Override
    public long getLength() {
        return length;
    }

    @Override
    public SeekableInputStream newStream() throws IOException {
        FSDataInputStream in = fs.open(path);
        return new DelegatingSeekableInputStream(in) {
            @Override
            public long getPos() throws IOException {
                return in.getPos();
            }

            @Override
            public void seek(long newPos) throws IOException {
                in.seek(newPos);
            }
        };
    }

    @Override
    public String toString() {
        return path.toString();
    }
}
