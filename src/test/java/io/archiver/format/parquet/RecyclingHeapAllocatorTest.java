package io.archiver.format.parquet;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.assertj.core.api.Assertions.assertThat;

class RecyclingHeapAllocatorTest {

    @Test
    void aReleasedBufferIsHandedOutAgainForASizeOfItsClassWithTheLimitAskedFor() {
        RecyclingHeapAllocator allocator = new RecyclingHeapAllocator(1 << 20);
        ByteBuffer first = allocator.allocate(5_000);
        assertThat(first.capacity()).isEqualTo(8_192);
        assertThat(first.limit()).isEqualTo(5_000);
        first.put(new byte[5_000]);
        allocator.release(first);
        assertThat(allocator.keptBytes()).isEqualTo(8_192);

        ByteBuffer again = allocator.allocate(7_000);
        assertThat(again).isSameAs(first);
        assertThat(again.position()).isZero();
        assertThat(again.limit()).isEqualTo(7_000);
        assertThat(allocator.keptBytes()).isZero();
        assertThat(allocator.allocate(7_000)).as("the class is empty again").isNotSameAs(first);
    }

    @Test
    void smallHugeAndForeignBuffersAreLeftToTheCollectorAndTheKeptBytesAreBounded() {
        RecyclingHeapAllocator allocator = new RecyclingHeapAllocator(20_000);
        ByteBuffer small = allocator.allocate(100);
        assertThat(small.capacity()).as("an open file's first buffers stay small").isEqualTo(100);
        allocator.release(small);
        allocator.release(ByteBuffer.allocateDirect(8_192));
        allocator.release(ByteBuffer.allocate(6_000));
        allocator.release(allocator.allocate(32 << 20));
        assertThat(allocator.keptBytes()).isZero();

        allocator.release(allocator.allocate(16_384));
        allocator.release(allocator.allocate(16_000));
        assertThat(allocator.keptBytes()).as("a second 16 KB buffer would pass 20,000 bytes").isEqualTo(16_384);
    }
}
