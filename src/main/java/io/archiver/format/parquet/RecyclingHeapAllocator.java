package io.archiver.format.parquet;

import org.apache.parquet.bytes.ByteBufferAllocator;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * Parquet's page and column-chunk buffers from heap buffers that Parquet released before: every page of every
 * column otherwise allocates (and zeroes) its buffers anew, and keeps each compressed page in another fresh one
 * until the row group is written; a third of what the Parquet writer allocated, profiled. A buffer of 4 KB or more
 * is handed out with a capacity of the next power of two and its limit at the size asked for (Parquet writes up
 * to the limit and reads what it wrote); released ones are kept by size class up to {@code maxKeptBytes}, and
 * those beyond that, buffers never released and smaller ones (an open file's first buffers, which must stay
 * small with many open files) are left to the garbage collector.
 *
 * <p>One per sink subtask, shared by its files like its codecs: they are written by its task thread one call at
 * a time. Not thread-safe.
 */
final class RecyclingHeapAllocator implements ByteBufferAllocator {

    /** Buffers under 4 KB are not worth keeping, nor those above 16 MB worth holding. */
    private static final int SMALLEST_CLASS = 12;
    private static final int LARGEST_CLASS = 24;

    @SuppressWarnings("unchecked")
    private final ArrayDeque<ByteBuffer>[] released = new ArrayDeque[LARGEST_CLASS + 1];
    private final long maxKeptBytes;
    private long keptBytes;

    RecyclingHeapAllocator(long maxKeptBytes) {
        this.maxKeptBytes = maxKeptBytes;
    }

    @Override
    public ByteBuffer allocate(int size) {
        if (size < 1 << SMALLEST_CLASS) {
            return ByteBuffer.allocate(size);
        }
        int sizeClass = 32 - Integer.numberOfLeadingZeros(size - 1);
        if (sizeClass > LARGEST_CLASS) {
            return ByteBuffer.allocate(size);
        }
        ArrayDeque<ByteBuffer> kept = released[sizeClass];
        ByteBuffer buffer = kept == null ? null : kept.pollLast();
        if (buffer == null) {
            buffer = ByteBuffer.allocate(1 << sizeClass);
        } else {
            keptBytes -= buffer.capacity();
        }
        buffer.clear().limit(size);
        return buffer;
    }

    @Override
    public void release(ByteBuffer buffer) {
        int capacity = buffer.capacity();
        if (buffer.isDirect() || Integer.bitCount(capacity) != 1 || capacity < 1 << SMALLEST_CLASS || capacity > 1 << LARGEST_CLASS
                || keptBytes + capacity > maxKeptBytes) {
            return;
        }
        int sizeClass = Integer.numberOfTrailingZeros(capacity);
        if (released[sizeClass] == null) {
            released[sizeClass] = new ArrayDeque<>();
        }
        released[sizeClass].addLast(buffer);
        keptBytes += capacity;
    }

    @Override
    public boolean isDirect() {
        return false;
    }

    /** Bytes held in released buffers. */
    long keptBytes() {
        return keptBytes;
    }
}
