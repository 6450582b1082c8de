package io.archiver.sink;

import io.archiver.metrics.ArchiverMetric;
import io.archiver.kafka.LogEndProbe;
import io.archiver.sink.files.FileStats;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.kafka.common.TopicPartition;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Commit metrics: per job files, bytes and records committed, commit duration and end; per partition the last
 * archived offset and the archive lag ({@link LogEndProbe}: from the first committed record not archived
 * to the last stable offset, 0 behind a trailing transaction marker).
 */
final class CommitMetrics {

    private final MetricGroup group;
    private final Counter files;
    private final Counter bytes;
    private final Counter records;
    /** Updated by the committer, read when the probe's log ends arrive (on the Kafka client's thread). */
    private final Map<TopicPartition, PartitionGauges> partitions = new ConcurrentHashMap<>();
    private volatile long lastCommitMillis;
    /** When the last commit ended (epoch ms); 0 before the first. */
    private volatile long lastCommitAt;

    CommitMetrics(MetricGroup group) {
        this.group = group;
        this.files = ArchiverMetric.ARCHIVED_FILES.counter(group);
        this.bytes = ArchiverMetric.ARCHIVED_BYTES.counter(group);
        this.records = ArchiverMetric.ARCHIVED_RECORDS.counter(group);
        ArchiverMetric.LAST_COMMIT_DURATION_MS.gauge(group, () -> lastCommitMillis);
        ArchiverMetric.LAST_COMMIT_TIMESTAMP.gauge(group, () -> lastCommitAt);
    }

    /** A committed file of {@code fileBytes} holding {@code stats} (per partition). */
    void committed(List<FileStats> stats, long fileBytes) {
        files.inc();
        bytes.inc(fileBytes);
        for (FileStats s : stats) {
            committed(s);
        }
    }

    private void committed(FileStats s) {
        records.inc(s.records());
        PartitionGauges p = partitions.computeIfAbsent(new TopicPartition(s.topic(), s.partition()), tp -> {
            PartitionGauges gauges = new PartitionGauges();
            MetricGroup g = group.addGroup("topic", tp.topic()).addGroup("partition", String.valueOf(tp.partition()));
            ArchiverMetric.LAST_ARCHIVED_OFFSET.gauge(g, () -> gauges.lastArchived);
            ArchiverMetric.ARCHIVE_LAG.gauge(g, () -> gauges.lag);
            return gauges;
        });
        p.lastArchived = Math.max(p.lastArchived, s.lastOffset());
    }

    /** Per partition, the offset after its last archived record. */
    Map<TopicPartition, Long> archivedEnds() {
        Map<TopicPartition, Long> ends = new HashMap<>();
        partitions.forEach((tp, p) -> ends.put(tp, p.lastArchived + 1));
        return ends;
    }

    void lags(Map<TopicPartition, Long> lags) {
        lags.forEach((tp, lag) -> {
            PartitionGauges p = partitions.get(tp);
            if (p != null) {
                p.lag = lag;
            }
        });
    }

    void commitDuration(long millis) {
        lastCommitMillis = millis;
        lastCommitAt = System.currentTimeMillis();
    }

    /** What the gauges of one partition read. */
    private static final class PartitionGauges {
        volatile long lastArchived = -1;
        /** Offsets from the first committed record not archived to the last stable offset; -1 until measured. */
        volatile long lag = -1;
    }
}
