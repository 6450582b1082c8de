package io.archiver.position;

import io.archiver.record.ArchiveRecord;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFilterFunction;
import org.apache.flink.metrics.Counter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.Map;

/**
 * Drops records the archive already holds: offsets below the partition's archive position. A job that
 * starts without state already begins there; this guards the starts the source does not ask the archive about
 * (partitions discovered while the job runs start from the earliest offset) and restores from savepoints older
 * than the archive. The position of a partition is read once, when its first record arrives.
 */
public final class ArchivedOffsetFilter extends RichFilterFunction<ArchiveRecord> {

    private static final long serialVersionUID = 1L;
    private static final long PASSED = Long.MIN_VALUE;
    private static final Logger LOG = LoggerFactory.getLogger(ArchivedOffsetFilter.class);

    private final PositionStore positions;
    private transient Map<String, Map<Integer, Long>> thresholds;
    private transient Counter skipped;
    private transient String lastPassedTopic;
    private transient int lastPassedPartition;

    public ArchivedOffsetFilter(PositionStore positions) {
        this.positions = positions;
    }

    @Override
    public void open(OpenContext context) {
        thresholds = new HashMap<>();
        lastPassedTopic = null;
        lastPassedPartition = -1;
        skipped = getRuntimeContext().getMetricGroup().counter("recordsSkippedAsArchived");
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
            threshold = positions.resumePosition(r.getTopic(), r.getPartition()).orElse(PASSED);
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
}
