package io.archiver.source;

import io.archiver.position.PositionRecovery;

import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Start position of a job without checkpoint or savepoint: each partition resumes right after the last
 * offset committed to the archive ({@link PositionRecovery}); partitions the archive has nothing of start
 * where the configured {@code kafka.start} says. Runs in the source's split enumerator (JobManager).
 */
public final class ArchiveOffsetsInitializer implements OffsetsInitializer {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(ArchiveOffsetsInitializer.class);

    private final PositionRecovery positions;
    private final OffsetsInitializer fallback;
    private final String fallbackName;

    public ArchiveOffsetsInitializer(PositionRecovery positions, OffsetsInitializer fallback, String fallbackName) {
        this.positions = positions;
        this.fallback = fallback;
        this.fallbackName = fallbackName;
    }

    @Override
    public Map<TopicPartition, Long> getPartitionOffsets(
            Collection<TopicPartition> partitions, PartitionOffsetsRetriever retriever) {
        long start = System.nanoTime();
        Map<TopicPartition, Long> offsets;
        try {
            offsets = new HashMap<>(positions.resumePositions(partitions));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the archive's positions under " + positions.store().root() + ": " + e.getMessage(), e);
        } finally {
            positions.forgetJobInPoolThreads(); // this runs on the JobManager, which sees job after job too
        }
        List<TopicPartition> rest = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            if (!offsets.containsKey(tp)) {
                rest.add(tp);
            }
        }
        warnOfTruncatedLogs(offsets, retriever);
        if (!rest.isEmpty()) {
            offsets.putAll(fallback.getPartitionOffsets(rest, retriever));
        }
        LOG.info("Start positions: {} partitions resume from the archive under {}, {} start at kafka.start={} ({} ms){}",
                partitions.size() - rest.size(), positions.store().root(), rest.size(), fallbackName,
                (System.nanoTime() - start) / 1_000_000, describe(offsets, partitions.size() - rest.size()));
        return offsets;
    }

    /**
     * Kafka's log of a partition ending before the archive's position: Kafka truncated it (an unclean leader election, a
     * replica that lost its disk) after the archive took those records. Said, naming the offsets: the job starts at the
     * archive's position all the same (the archive keeps what it holds and never takes an offset twice), so records Kafka
     * writes below it from now on are not archived.
     */
    private static void warnOfTruncatedLogs(Map<TopicPartition, Long> resumed, PartitionOffsetsRetriever retriever) {
        if (resumed.isEmpty()) {
            return;
        }
        Map<TopicPartition, Long> ends;
        try {
            ends = retriever.endOffsets(resumed.keySet());
        } catch (RuntimeException e) {
            // a check, not a start condition: a partition Kafka does not serve now must not keep the job from starting
            LOG.info("Could not compare the archive's positions with Kafka's log ends ({}); the job resumes at the positions", e.toString());
            return;
        }
        ends.forEach((tp, end) -> {
            long position = resumed.get(tp);
            if (end != null && end < position) {
                LOG.warn("{}: the archive holds offsets up to {}, Kafka's log ends at {}: Kafka truncated the partition's log since "
                        + "(an unclean leader election?). The archive keeps offsets {}..{}; the job resumes after them, so records "
                        + "Kafka writes at offsets up to {} are not archived: compare with audit --deep (docs/operations.md, "
                        + "\"Kafka truncated its log\").", tp, position - 1, end, end, position - 1, position - 1);
            }
        });
    }

    private static String describe(Map<TopicPartition, Long> offsets, int resumed) {
        return resumed == 0 || offsets.size() > 50 ? "" : ": " + new java.util.TreeMap<>(stringKeys(offsets));
    }

    private static Map<String, Long> stringKeys(Map<TopicPartition, Long> offsets) {
        Map<String, Long> m = new HashMap<>();
        offsets.forEach((tp, o) -> m.put(tp.toString(), o));
        return m;
    }

    @Override
    public OffsetResetStrategy getAutoOffsetResetStrategy() {
        return fallback.getAutoOffsetResetStrategy();
    }
}
