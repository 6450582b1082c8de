package io.archiver.format.parquet;

import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;
import org.apache.parquet.io.SeekableInputStream;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;

/** A Parquet file in heap: written once, then read back. */
final class MemoryParquetFile implements OutputFile, InputFile {

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 * 1024);

    byte[] bytes() {
        return bytes.toByteArray();
    }

    @Override
    public PositionOutputStream create(long blockSizeHint) {
        return new PositionOutputStream() {
            @Override
            public long getPos() {
                return bytes.size();
            }

            @Override
            public void write(int b) {
                bytes.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                bytes.write(b, off, len);
            }
        };
    }

    @Override
    public PositionOutputStream createOrOverwrite(long blockSizeHint) {
        bytes.reset();
        return create(blockSizeHint);
    }

    @Override
    public boolean supportsBlockSize() {
        return false;
    }

    @Override
    public long defaultBlockSize() {
        return 0;
    }

    @Override
    public long getLength() {
        return bytes.size();
    }

    @Override
    public SeekableInputStream newStream() {
        byte[] content = bytes.toByteArray();
        ByteArrayInputStream in = new ByteArrayInputStream(content);
        return new DelegatingSeekableInputStream(in) {
            @Override
            public long getPos() {
                return content.length - in.available();
            }

            @Override
            public void seek(long newPos) {
                in.reset();
                in.skip(newPos);
            }
        };
    }
}
