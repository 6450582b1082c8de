package io.archiver.audit;

import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;

/**
 * Compares archived partitions with Kafka's committed log on a thread of its own, each partition as soon as
 * the archive side of it is read, so that reading Kafka overlaps reading the archive. A partition's log is read
 * once, sequentially, from its first archived offset (or the log start) up to the first committed record after
 * its last archived one, and compared as it goes ({@link LogComparison}).
 */
final class CommittedLogComparer {

    private static final long PROGRESS_EVERY_NANOS = 5_000_000_000L;

    private final KafkaInspector kafka;
    private final Map<TopicPartition, KafkaPartitionState> state;
    private final Consumer<String> progress;
    private final ExecutorService worker = Executors.newSingleThreadExecutor(runnable -> {
        Thread t = new Thread(runnable, "audit-kafka-log");
        t.setDaemon(true);
        return t;
    });
    private final List<Future<?>> tasks = new ArrayList<>();
    private final Map<TopicPartition, LogComparison> comparisons = new ConcurrentHashMap<>();
    /** Used on the worker thread only. */
    private LogScanner scanner;
    private long lastProgress = System.nanoTime();

    /** {@code state}: the partitions Kafka knows, read after the archive was listed. */
    CommittedLogComparer(KafkaInspector kafka, Map<TopicPartition, KafkaPartitionState> state, Consumer<String> progress) {
        this.kafka = kafka;
        this.state = state;
        this.progress = progress;
    }

    /** The archive side of a partition is read: compare it (in the background). */
    void submit(PartitionReport report) {
        TopicPartition tp = new TopicPartition(report.topic(), report.partition());
        if (state.containsKey(tp)) {
            tasks.add(worker.submit(() -> compare(Map.of(tp, report.offsets()))));
        }
    }

    /** Compares the partitions Kafka knows that the archive has nothing of, waits for every comparison, returns them. */
    Map<TopicPartition, LogComparison> finish() throws Exception {
        try {
            Map<TopicPartition, long[]> empty = new HashMap<>();
            tasks.add(worker.submit(() -> {
                state.keySet().stream().filter(tp -> !comparisons.containsKey(tp)).forEach(tp -> empty.put(tp, new long[0]));
                compare(empty);
            }));
            for (Future<?> task : tasks) {
                task.get();
            }
            return comparisons;
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
        } finally {
            stop();
        }
    }

    /** Drops the comparisons not started yet and ends the worker (the archive side failed). */
    void abort() {
        tasks.forEach(t -> t.cancel(false));
        stop();
    }

    private void stop() {
        worker.submit(() -> {
            if (scanner != null) {
                scanner.close();
            }
        });
        worker.shutdown();
    }

    private void compare(Map<TopicPartition, long[]> archived) {
        if (scanner == null) {
            scanner = kafka.scanner(IsolationLevel.READ_COMMITTED);
        }
        Map<TopicPartition, LogScanner.Range> ranges = new HashMap<>();
        archived.forEach((tp, offsets) -> {
            KafkaPartitionState k = state.get(tp);
            comparisons.put(tp, new LogComparison(offsets, k.logStart()));
            long from = offsets.length == 0 ? k.logStart() : Math.max(offsets[0], k.logStart());
            long stopAt = offsets.length == 0 ? from : offsets[offsets.length - 1] + 1;
            ranges.put(tp, new LogScanner.Range(from, stopAt, k.lastStable()));
        });
        scanner.scan(ranges, new LogScanner.Visitor() {
            @Override
            public void record(TopicPartition tp, long offset) {
                comparisons.get(tp).committed(offset);
            }

            @Override
            public void done(TopicPartition tp, long firstBeyond) {
                comparisons.get(tp).end(firstBeyond);
            }
        }, progress);
        long now = System.nanoTime();
        if (now - lastProgress > PROGRESS_EVERY_NANOS) {
            lastProgress = now;
            progress.accept(String.format("  compared %d of %d partitions with Kafka's committed log", comparisons.size(), state.size()));
        }
    }
}
