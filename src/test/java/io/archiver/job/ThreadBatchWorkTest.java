package io.archiver.job;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ThreadBatchWorkTest {

    private static final AtomicInteger RUN = new AtomicInteger();

    @Test
    void everyItemRunsOnceAndEachThreadWorksWithACopyOfItsOwn() throws IOException {
        List<Integer> items = IntStream.range(0, 500).boxed().toList();
        Counting task = new Counting();
        List<String> results = new ThreadBatchWork(3).run("test", items, task);
        assertThat(results).hasSize(500);
        assertThat(results.stream().map(r -> Integer.parseInt(r.split(" ")[0]))).containsExactlyInAnyOrderElementsOf(items);
        // each copy counts the items it ran: no other thread touched its count, which runs 1, 2, 3, ... without gaps
        java.util.Map<String, List<Integer>> counts = results.stream().collect(java.util.stream.Collectors.groupingBy(r -> r.split(" ")[1],
                java.util.stream.Collectors.mapping(r -> Integer.parseInt(r.split(" ")[2]), java.util.stream.Collectors.toList())));
        assertThat(counts).hasSizeBetween(1, 3);
        counts.values().forEach(c -> assertThat(c).containsExactlyInAnyOrderElementsOf(IntStream.rangeClosed(1, c.size()).boxed().toList()));
        assertThat(task.seen).as("the original, never run").isZero();
    }

    @Test
    void aFailedItemFailsTheRunWithItsErrorAndNoFurtherItemIsTaken() {
        RUN.set(0);
        List<Integer> items = IntStream.range(0, 10_000).boxed().toList();
        assertThatThrownBy(() -> new ThreadBatchWork(2).run("test", items, i -> {
            RUN.incrementAndGet();
            if (i == 10) {
                throw new IOException("item 10 cannot be read");
            }
            return i;
        })).isInstanceOf(IOException.class).hasMessage("item 10 cannot be read");
        assertThat(RUN.get()).isLessThan(items.size());
    }

    @Test
    void noItemsNoResults() throws IOException {
        assertThat(new ThreadBatchWork(2).run("test", List.<Integer>of(), i -> i)).isEmpty();
    }

    /** Returns "item copy-id count": a copy's count of the items it ran, and which copy ran it. */
    private static final class Counting implements BatchWork.Task<Integer, String> {
        private static final long serialVersionUID = 1L;
        private static final AtomicInteger COPIES = new AtomicInteger();
        int seen;
        private transient Integer copy;

        @Override
        public String apply(Integer item) {
            if (copy == null) {
                copy = COPIES.incrementAndGet();
            }
            seen++;
            return item + " " + copy + " " + seen;
        }
    }
}
