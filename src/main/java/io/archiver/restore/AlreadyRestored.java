package io.archiver.restore;

import io.archiver.config.ArchiverConfig;
import io.archiver.kafka.LastStableOffsets;
import io.archiver.kafka.LogScanner;
import io.archiver.kafka.TopicDescriptions;
import io.archiver.position.RestoreStarts;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Headers;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * How many records of each archived partition a restore has written already, so that the same restore
 * started again without state goes on after them. The first start of a restore records, before it writes, the
 * last stable offset of every target partition ({@link RestoreStarts}); a later start counts the committed
 * records each target partition holds from there (a read_committed scan that copies no payload), per archived
 * partition: the same partition number, or, re-partitioned, the archived partition each record's source
 * header names. Records of a partition are written in order, exactly once, by this restore alone, so they are
 * the first that many of its plan. Anyone else writing to the targets meanwhile makes the count wrong: restore into topics nobody writes.
 */
final class AlreadyRestored {

    private static final int FETCH_BYTES = 1 << 20;

    private AlreadyRestored() {}

    /** Per archived partition ({@code topic-partition}), the records already written; empty at the first start. */
    static Map<String, Long> count(ArchiverConfig config, RestorePlan plan, RestoreSelection selection, String restoreId,
            PrintWriter out) throws Exception {
        Map<TopicPartition, TopicPartition> targets = new HashMap<>();
        Map<TopicPartition, Long> stable;
        try (Admin admin = Admin.create(config.kafkaClientProperties())) {
            if (selection.repartition()) {
                Set<String> topics = new HashSet<>();
                plan.partitions().keySet().forEach(tp -> topics.add(selection.target(tp.topic())));
                TopicDescriptions.of(admin, topics, Duration.ofSeconds(30)).found().forEach((topic, description) ->
                        description.partitions().forEach(p -> targets.put(new TopicPartition(topic, p.partition()), null)));
            } else {
                plan.partitions().keySet().forEach(tp -> targets.put(new TopicPartition(selection.target(tp.topic()), tp.partition()), tp));
            }
            awaitCommitsCompleted(admin, restoreId);
            stable = LastStableOffsets.of(admin, targets.keySet(), Duration.ofSeconds(30));
        }
        RestoreStarts starts = new RestoreStarts(config.sinkPath(), restoreId);
        Optional<Map<String, Long>> recorded = starts.read();
        Map<String, Long> begin = new HashMap<>(recorded.orElse(Map.of()));
        boolean changed = recorded.isEmpty();
        for (Map.Entry<TopicPartition, Long> e : stable.entrySet()) {
            Long start = begin.get(e.getKey().toString());
            if (start == null || start > e.getValue()) { // new target partition, or the topic was created again
                begin.put(e.getKey().toString(), e.getValue());
                changed = true;
            }
        }
        if (changed) {
            starts.write(begin);
        }
        Map<TopicPartition, LogScanner.Range> ranges = new HashMap<>();
        stable.forEach((tp, end) -> {
            long start = begin.get(tp.toString());
            if (end > start) {
                ranges.put(tp, new LogScanner.Range(start, end, end));
            }
        });
        Map<String, Long> written = new HashMap<>();
        if (ranges.isEmpty()) {
            return written;
        }
        try (LogScanner scanner = new LogScanner(config.kafkaClientProperties(), IsolationLevel.READ_COMMITTED, FETCH_BYTES,
                Duration.ofSeconds(30))) {
            scanner.scan(ranges, new LogScanner.Visitor() {
                @Override
                public void record(TopicPartition tp, long offset) {
                    written.merge(targets.get(tp).toString(), 1L, Long::sum);
                }

                @Override
                public void record(TopicPartition tp, long offset, Headers headers) {
                    if (!selection.repartition()) {
                        record(tp, offset);
                        return;
                    }
                    RestoredRecords.Source source = RestoredRecords.sourceOf(headers);
                    if (source != null) {
                        written.merge(source.archivedPartition(), 1L, Long::sum);
                    }
                }

                @Override
                public void done(TopicPartition tp, long firstBeyond) {}
            }, line -> {});
        }
        written.forEach((archived, n) -> out.printf("%s: %d records already restored by an earlier start of this restore (%s); "
                + "going on after them%n", archived, n, starts.path()));
        out.flush();
        return written;
    }

    /**
     * Waits (30 s at most) until no transaction of this restore is between its commit or abort and the markers
     * that finish it: a commit returns before its markers reach every partition, and counting before they do
     * would miss records that are committed.
     */
    static void awaitCommitsCompleted(Admin admin, String restoreId) throws Exception {
        ListTransactionsOptions completing = new ListTransactionsOptions()
                .filterStates(List.of(TransactionState.PREPARE_COMMIT, TransactionState.PREPARE_ABORT));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline
                && admin.listTransactions(completing).all().get(30, TimeUnit.SECONDS).stream()
                        .anyMatch(t -> t.transactionalId().startsWith(restoreId))) {
            TimeUnit.MILLISECONDS.sleep(100);
        }
    }
}
