package io.archiver.pipeline;

import io.archiver.metrics.ArchiverMetric;
import io.archiver.fs.IoThreads;
import io.archiver.position.ArchivePositions;
import io.archiver.position.PositionRecovery;
import io.archiver.record.ArchiveRecord;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFilterFunction;
import org.apache.flink.metrics.Counter;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Drops records the archive already holds: offsets below the partition's archive position. A job that
 * starts without state already begins there; this guards the starts the source does not ask the archive about
 * (partitions discovered while the job runs start from the earliest offset) and restores from savepoints older
 * than the archive. The archive's positions are read when the first record arrives (one listing, a read per
 * subtask object); a partition's position is resolved from them when its first record arrives.
 *
 * <p>The first record of a topic also starts checking ahead, in the background and in parallel, the files the
 * positions of the partitions this subtask will most likely meet next list: the Kafka source hands a reader
 * every partition congruent to the one it met first, modulo the readers (the filter runs chained to them).
 * Only positions settled by checking alone are kept (no record, or a record whose files are all visible). A
 * partition whose first record arrives before the check is done, one the guess missed, or one whose record lists
 * a file whose commit must be completed is resolved when that record arrives. Reading once and checking ahead
 * are safe because only this job writes the positions of its partitions, and only for records that have passed
 * this filter: a position read at the start cannot change before its partition's first record gets here, and is
 * not used after.
 */
public final class ArchivedOffsetFilter extends RichFilterFunction<ArchiveRecord> {

    private static final long serialVersionUID = 1L;
    private static final long PASSED = Long.MIN_VALUE;
    private static final Logger LOG = LoggerFactory.getLogger(ArchivedOffsetFilter.class);
    private static final int READ_AHEAD_REQUESTS = 16;

    private final PositionRecovery positions;
    /** The archive's positions, read at the first record. */
    private transient ArchivePositions archived;
    private transient Map<String, Map<Integer, Long>> thresholds;
    /** Per topic: the partitions with a position record and the settled positions, read in the background. */
    private transient Map<String, CompletableFuture<ReadAhead>> readAhead;
    /** The read-ahead's requests, and the thread that reads one topic ahead after another. */
    private transient ExecutorService requests;
    private transient ExecutorService readingAhead;
    private transient Counter skipped;
    private transient String lastPassedTopic;
    private transient int lastPassedPartition;

    public ArchivedOffsetFilter(PositionRecovery positions) {
        this.positions = positions;
    }

    @Override
    public void open(OpenContext context) {
        archived = null;
        thresholds = new HashMap<>();
        readAhead = new HashMap<>();
        lastPassedTopic = null;
        lastPassedPartition = -1;
        skipped = ArchiverMetric.RECORDS_SKIPPED_AS_ARCHIVED.counter(getRuntimeContext().getMetricGroup());
    }

    @Override
    public boolean filter(ArchiveRecord r) throws Exception {
        // Records come in per-partition batches: the partition of the previous record, once past its
        // position, needs no lookup.
        if (r.getPartition() == lastPassedPartition && r.getTopic().equals(lastPassedTopic)) {
            return true;
        }
        Map<Integer, Long> topic = thresholds.computeIfAbsent(r.getTopic(), t -> new HashMap<>());
        Long threshold = topic.get(r.getPartition());
        if (threshold == null) {
            threshold = position(r.getTopic(), r.getPartition());
            if (r.getOffset() < threshold) {
                LOG.info("{}-{}: skipping offsets {}..{}, already in the archive", r.getTopic(), r.getPartition(),
                        r.getOffset(), threshold - 1);
            }
        }
        if (r.getOffset() >= threshold) {
            topic.put(r.getPartition(), PASSED);
            lastPassedTopic = r.getTopic();
            lastPassedPartition = r.getPartition();
            return true;
        }
        topic.put(r.getPartition(), threshold);
        skipped.inc();
        return false;
    }

    /** The partition's archive position, or {@code PASSED} if the archive holds nothing of it. */
    private long position(String topic, int partition) throws IOException {
        if (archived == null) {
            archived = positions.read();
        }
        CompletableFuture<ReadAhead> ahead = readAhead.get(topic);
        if (ahead == null) {
            readAhead.put(topic, readAhead(topic, partition));
        } else if (ahead.isDone() && !ahead.isCompletedExceptionally()) {
            ReadAhead known = ahead.join();
            if (!known.recorded().contains(partition)) {
                return PASSED;
            }
            Long settled = known.settled().get(partition);
            if (settled != null) {
                return settled;
            }
        }
        return positions.resumePosition(archived, new TopicPartition(topic, partition)).orElse(PASSED);
    }

    /** Starts checking ahead the positions of {@code topic}'s partitions congruent to {@code first}. */
    private CompletableFuture<ReadAhead> readAhead(String topic, int first) {
        int readers = getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
        if (requests == null) {
            requests = Executors.newFixedThreadPool(READ_AHEAD_REQUESTS, IoThreads.daemon("archive-positions-read-ahead"));
            readingAhead = Executors.newSingleThreadExecutor(IoThreads.daemon("archive-positions-read-ahead-topics"));
        }
        ArchivePositions known = archived;
        return CompletableFuture.supplyAsync(() -> {
            try {
                Set<Integer> recorded = known.partitionsOf(topic);
                List<TopicPartition> likely = new ArrayList<>();
                for (int p : recorded) {
                    if (p != first && p % readers == first % readers) {
                        likely.add(new TopicPartition(topic, p));
                    }
                }
                Map<Integer, Long> settled = new HashMap<>();
                positions.settledPositions(known, likely, requests).forEach((tp, offset) -> settled.put(tp.partition(), offset));
                if (!recorded.isEmpty()) {
                    LOG.info("{}: {} partitions have archive positions; checked ahead {} settled of the {} more this reader is likely to get",
                            topic, recorded.size(), settled.size(), likely.size());
                }
                return new ReadAhead(recorded, settled);
            } catch (IOException e) {
                LOG.warn("{}: checking archive positions ahead failed ({}); each partition is resolved when its first record arrives",
                        topic, e.toString());
                throw new UncheckedIOException(e);
            }
        }, readingAhead);
    }

    @Override
    public void close() throws Exception {
        if (requests != null) {
            readingAhead.shutdownNow();
            requests.shutdownNow();
        }
        positions.forgetJobInPoolThreads();
        super.close();
    }

    /** What the first record of a topic found: the partitions with a position record, and the settled positions. */
    private record ReadAhead(Set<Integer> recorded, Map<Integer, Long> settled) {}
}
