package io.archiver.audit;

import io.archiver.archive.PartitionReport;
import io.archiver.kafka.LogScanner;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Consumer;

/**
 * Compares archived partitions with Kafka's committed log on a thread of its own, while the archive is read:
 * whenever the thread is free it takes every partition whose archive side is read by then and reads their logs
 * together on one consumer. A partition's log is read once, sequentially, from its first archived offset (or
 * the log start) up to the first committed record after its last archived one, and compared as it goes
 * ({@link LogComparison}).
 */
final class CommittedLogComparer {

    private static final long PROGRESS_EVERY_NANOS = 5_000_000_000L;
    /** Put after the last partition the archive has. */
    private static final PartitionReport END = new PartitionReport("", -1, List.of(), 0, new long[0], Map.of());

    private final KafkaInspector kafka;
    private final Map<TopicPartition, KafkaPartitionState> state;
    private final Consumer<String> progress;
    private final ExecutorService worker = Executors.newSingleThreadExecutor(runnable -> {
        Thread t = new Thread(runnable, "audit-kafka-log");
        t.setDaemon(true);
        return t;
    });
    private final BlockingQueue<PartitionReport> ready = new LinkedBlockingQueue<>();
    private final Future<?> comparing;
    private final Map<TopicPartition, LogComparison> comparisons = new ConcurrentHashMap<>();
    /** Used on the worker thread only. */
    private LogScanner scanner;
    private long lastProgress = System.nanoTime();

    /** {@code state}: the partitions Kafka knows, read after the archive was listed. */
    CommittedLogComparer(KafkaInspector kafka, Map<TopicPartition, KafkaPartitionState> state, Consumer<String> progress) {
        this.kafka = kafka;
        this.state = state;
        this.progress = progress;
        this.comparing = worker.submit(this::compareAsReady);
    }

    /** The archive side of a partition is read: compare it (in the background). */
    void submit(PartitionReport report) {
        if (state.containsKey(new TopicPartition(report.topic(), report.partition()))) {
            ready.add(report);
        }
    }

    /** Compares the partitions Kafka knows that the archive has nothing of, waits for every comparison, returns them. */
    Map<TopicPartition, LogComparison> finish() throws Exception {
        ready.add(END);
        try {
            comparing.get();
            return comparisons;
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
        } finally {
            stop();
        }
    }

    /** Ends the worker, comparing nothing more (the archive side failed). */
    void abort() {
        comparing.cancel(true);
        stop();
    }

    private Void compareAsReady() throws InterruptedException {
        boolean end = false;
        while (!end) {
            List<PartitionReport> batch = new ArrayList<>();
            batch.add(ready.take());
            ready.drainTo(batch);
            Map<TopicPartition, long[]> archived = new HashMap<>();
            for (PartitionReport report : batch) {
                if (report == END) {
                    end = true;
                } else {
                    archived.put(new TopicPartition(report.topic(), report.partition()), report.offsets());
                }
            }
            if (end) {
                state.keySet().stream().filter(tp -> !comparisons.containsKey(tp) && !archived.containsKey(tp))
                        .forEach(tp -> archived.put(tp, new long[0]));
            }
            compare(archived);
        }
        return null;
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
