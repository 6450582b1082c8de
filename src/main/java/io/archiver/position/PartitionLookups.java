package io.archiver.position;

import org.apache.kafka.common.TopicPartition;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/** Runs the requests of the position records on a pool, waits for them all and hands out their results. */
final class PartitionLookups {

    private PartitionLookups() {}

    /** Runs {@code lookup} for every partition on {@code pool}; partitions it finds nothing for are left out. */
    static Map<TopicPartition, Long> perPartition(
            Collection<TopicPartition> partitions, ExecutorService pool, Lookup lookup) throws IOException {
        Map<TopicPartition, Future<Optional<Long>>> lookups = new HashMap<>();
        for (TopicPartition tp : partitions) {
            lookups.put(tp, pool.submit(() -> lookup.of(tp)));
        }
        await(new ArrayList<>(lookups.values()));
        Map<TopicPartition, Long> positions = new HashMap<>();
        for (Map.Entry<TopicPartition, Future<Optional<Long>>> e : lookups.entrySet()) {
            done(e.getValue()).ifPresent(offset -> positions.put(e.getKey(), offset));
        }
        return positions;
    }

    /** A position lookup of one partition. */
    interface Lookup {
        Optional<Long> of(TopicPartition tp) throws IOException;
    }

    /** The result of a future {@link #await} has seen done. */
    static <T> T done(Future<T> future) throws IOException {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("Interrupted while accessing archive positions", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw cause instanceof IOException ? (IOException) cause : new IOException(cause);
        }
    }

    /** Waits for every future; the first that failed fails the wait, and the others are cancelled. */
    static void await(List<? extends Future<?>> futures) throws IOException {
        try {
            for (Future<?> f : futures) {
                done(f);
            }
        } finally {
            futures.forEach(f -> f.cancel(true));
        }
    }
}
