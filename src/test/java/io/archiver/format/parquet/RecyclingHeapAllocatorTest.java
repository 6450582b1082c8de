package io.archiver.format.parquet;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.assertj.core.api.Assertions.assertThat;

class RecyclingHeapAllocatorTest {

    @Test
    void aReleasedBufferIsHandedOutAgainForASizeItExceedsByAtMostAnEighthWithTheLimitAskedFor() {
        RecyclingHeapAllocator allocator = new RecyclingHeapAllocator(1 << 20);
        ByteBuffer first = allocator.allocate(8_000);
        assertThat(first.capacity()).as("allocated as asked").isEqualTo(8_000);
        first.put(new byte[8_000]);
        allocator.release(first);
        assertThat(allocator.keptBytes()).isEqualTo(8_000);

        assertThat(allocator.allocate(6_000)).as("8,000 is more than an eighth over 6,000").isNotSameAs(first);
        ByteBuffer again = allocator.allocate(7_200);
        assertThat(again).isSameAs(first);
        assertThat(again.position()).isZero();
        assertThat(again.limit()).isEqualTo(7_200);
        assertThat(allocator.keptBytes()).isZero();
        assertThat(allocator.allocate(7_200)).as("handed out once").isNotSameAs(first);
    }

    @Test
    void smallViewsAndBuffersReleasedTwiceOrBeyondTheBoundAreNotKept() {
        RecyclingHeapAllocator allocator = new RecyclingHeapAllocator(20_000);
        ByteBuffer small = allocator.allocate(100);
        allocator.release(small);
        ByteBuffer whole = ByteBuffer.allocate(12_000);
        allocator.release(whole.position(4_000).slice());
        assertThat(allocator.keptBytes()).as("small buffers and views of part of an array").isZero();

        allocator.release(whole);
        allocator.release(whole);
        assertThat(allocator.keptBytes()).as("released twice, kept once").isEqualTo(12_000);
        allocator.release(ByteBuffer.allocate(10_000));
        assertThat(allocator.keptBytes()).as("bounded").isEqualTo(12_000);
        assertThat(allocator.allocate(12_000)).isSameAs(whole);
        assertThat(allocator.allocate(12_000)).isNotSameAs(whole);
    }
}
