package io.archiver.bench;

import org.apache.flink.core.fs.FSDataOutputStream;

/** A part file's stream that keeps nothing and counts what it is given. */
final class DiscardingPartFile extends FSDataOutputStream {

    private long pos;

    @Override
    public long getPos() {
        return pos;
    }

    @Override
    public void write(int b) {
        pos++;
    }

    @Override
    public void write(byte[] b, int off, int len) {
        pos += len;
    }

    @Override
    public void flush() {}

    @Override
    public void sync() {}

    @Override
    public void close() {}
}
