package io.archiver.format.parquet;

import org.apache.parquet.bytes.ByteBufferAllocator;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Parquet's page buffers from heap buffers Parquet released before. Every page of every column otherwise allocates
 * (and zeroes) its buffers anew: the page's value buffers are released when the page is written and asked for
 * again, of nearly the same sizes, for the next one (Parquet sizes a column's buffers by its last page), and each
 * compressed page is copied into a fresh buffer kept until the row group is written. A buffer is handed out again
 * for a size it exceeds by at most an eighth, with its limit at the size asked for (Parquet writes up to the limit
 * and reads what it wrote), so a buffer in use is never much larger than asked for, whatever the number of open
 * files; released buffers are kept up to {@code maxKeptBytes}, and smaller ones than 4 KB (an open file's first
 * buffers) and those beyond that bound are left to the garbage collector.
 *
 * <p>One per sink subtask, shared by its files like its codecs.
 */
final class RecyclingHeapAllocator implements ByteBufferAllocator {

    /** Buffers under 4 KB are not worth keeping. */
    private static final int SMALLEST = 4096;

    /** Released buffers by capacity. */
    private final TreeMap<Integer, ArrayDeque<ByteBuffer>> released = new TreeMap<>();
    /** The same buffers, by identity: a buffer released twice is kept once. */
    private final Set<ByteBuffer> kept = Collections.newSetFromMap(new IdentityHashMap<>());
    private final long maxKeptBytes;
    private long keptBytes;

    RecyclingHeapAllocator(long maxKeptBytes) {
        this.maxKeptBytes = maxKeptBytes;
    }

    @Override
    public synchronized ByteBuffer allocate(int size) {
        if (size >= SMALLEST) {
            Map.Entry<Integer, ArrayDeque<ByteBuffer>> fit = released.ceilingEntry(size);
            if (fit != null && fit.getKey() - size <= size >> 3) {
                ByteBuffer buffer = fit.getValue().pollLast();
                if (fit.getValue().isEmpty()) {
                    released.remove(fit.getKey());
                }
                kept.remove(buffer);
                keptBytes -= buffer.capacity();
                buffer.clear().limit(size);
                return buffer;
            }
        }
        return ByteBuffer.allocate(size);
    }

    @Override
    public synchronized void release(ByteBuffer buffer) {
        int capacity = buffer.capacity();
        // only whole heap arrays: a view of part of one could be handed out beside the array's other parts
        if (buffer.isDirect() || buffer.isReadOnly() || !buffer.hasArray() || buffer.arrayOffset() != 0
                || capacity != buffer.array().length || capacity < SMALLEST || keptBytes + capacity > maxKeptBytes
                || !kept.add(buffer)) {
            return;
        }
        released.computeIfAbsent(capacity, c -> new ArrayDeque<>()).addLast(buffer);
        keptBytes += capacity;
    }

    @Override
    public boolean isDirect() {
        return false;
    }

    /** Bytes held in released buffers. */
    synchronized long keptBytes() {
        return keptBytes;
    }
}
