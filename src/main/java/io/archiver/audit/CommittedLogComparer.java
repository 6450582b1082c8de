package io.archiver.audit;

import io.archiver.archive.PartitionReport;
import io.archiver.archive.RejectedRecords;
import io.archiver.kafka.LogScanner;
import io.archiver.record.RecordDigest;

import org.apache.kafka.clients.consumer.ConsumerRecord;
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
 * together on one consumer. A partition's log is read once, sequentially, from its first archived or rejected offset
 * (or the log start) up to the first committed record after its last archived or rejected one, and compared as it
 * goes ({@link LogComparison}). With {@code contents}, each record's {@link RecordDigest} is taken from the fetched
 * bytes and compared with the archived record's.
 */
final class CommittedLogComparer {

    private static final long PROGRESS_EVERY_NANOS = 5_000_000_000L;
    /** Put after the last partition the archive has. */
    private static final PartitionReport END = new PartitionReport("", -1, List.of(), 0, new long[0], Map.of());

    private final KafkaInspector kafka;
    private final Map<TopicPartition, KafkaPartitionState> state;
    private final RejectedRecords rejected;
    private final boolean contents;
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

    /**
     * {@code state}: the partitions Kafka knows, read after the archive was listed; {@code rejected}: the records the
     * job left out on purpose; {@code contents}: compare each record's content (the reports carry digests).
     */
    CommittedLogComparer(KafkaInspector kafka, Map<TopicPartition, KafkaPartitionState> state, RejectedRecords rejected,
            boolean contents, Consumer<String> progress) {
        this.kafka = kafka;
        this.state = state;
        this.rejected = rejected;
        this.contents = contents;
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
            Map<TopicPartition, PartitionReport> archived = new HashMap<>();
            for (PartitionReport report : batch) {
                if (report == END) {
                    end = true;
                } else {
                    archived.put(new TopicPartition(report.topic(), report.partition()), report);
                }
            }
            if (end) {
                state.keySet().stream().filter(tp -> !comparisons.containsKey(tp) && !archived.containsKey(tp))
                        .forEach(tp -> archived.put(tp, new PartitionReport(tp.topic(), tp.partition(), List.of(), 0, new long[0], Map.of())));
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

    private void compare(Map<TopicPartition, PartitionReport> archived) {
        if (scanner == null) {
            scanner = kafka.scanner(IsolationLevel.READ_COMMITTED, contents);
        }
        Map<TopicPartition, LogScanner.Range> ranges = new HashMap<>();
        archived.forEach((tp, report) -> {
            KafkaPartitionState k = state.get(tp);
            long[] offsets = report.offsets();
            RejectedRecords.OfPartition rejectedHere = rejected.of(tp.topic(), tp.partition());
            comparisons.put(tp, new LogComparison(offsets, report.digests(), rejectedHere, k.logStart()));
            long first = first(offsets.length == 0 ? -1 : offsets[0], rejectedHere.first());
            long last = Math.max(offsets.length == 0 ? -1 : offsets[offsets.length - 1], rejectedHere.last());
            long from = first < 0 ? k.logStart() : Math.max(first, k.logStart());
            long stopAt = last < 0 ? from : last + 1;
            ranges.put(tp, new LogScanner.Range(from, stopAt, k.lastStable()));
        });
        scanner.scan(ranges, new LogScanner.Visitor() {
            @Override
            public void record(TopicPartition tp, long offset) {
                comparisons.get(tp).committed(offset);
            }

            @Override
            public void record(TopicPartition tp, ConsumerRecord<?, ?> record) {
                if (contents) {
                    comparisons.get(tp).committed(record.offset(), RecordDigest.of(record), record.timestamp());
                } else {
                    comparisons.get(tp).committed(record.offset());
                }
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

    /** The smaller of two offsets that may be -1 (none). */
    private static long first(long a, long b) {
        return a < 0 ? b : b < 0 ? a : Math.min(a, b);
    }
}
