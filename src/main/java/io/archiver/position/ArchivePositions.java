package io.archiver.position;

import org.apache.kafka.common.TopicPartition;

import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The archive's positions as read at one moment ({@link PositionStore#read}): per partition, the record with the
 * highest sequence among every object that holds one, and where that record is stored.
 */
public final class ArchivePositions {

    private final Map<TopicPartition, PositionRecord> records = new HashMap<>();
    private final Map<TopicPartition, Origin> origins = new HashMap<>();

    /** Takes {@code record} unless a record of its partition with a higher sequence is known. */
    void offer(PositionRecord record, Origin origin) {
        TopicPartition tp = record.topicPartition();
        PositionRecord known = records.get(tp);
        if (known == null || record.sequence() > known.sequence()) {
            records.put(tp, record);
            origins.put(tp, origin);
        }
    }

    /** The position record of a partition, if the archive holds any of it. */
    public Optional<PositionRecord> record(TopicPartition tp) {
        return Optional.ofNullable(records.get(tp));
    }

    /** The position record of every partition the archive holds. */
    public Collection<PositionRecord> all() {
        return Collections.unmodifiableCollection(records.values());
    }

    /** The partitions of {@code topic} with a position. */
    public Set<Integer> partitionsOf(String topic) {
        Set<Integer> partitions = new TreeSet<>();
        for (TopicPartition tp : records.keySet()) {
            if (tp.topic().equals(topic)) {
                partitions.add(tp.partition());
            }
        }
        return partitions;
    }

    Origin origin(TopicPartition tp) {
        return origins.get(tp);
    }

    /**
     * Where a record is stored: the positions object of a committer subtask, or (archives of earlier versions)
     * a per-partition record ({@code subtask} -1).
     */
    record Origin(int subtask) {
        static final Origin PER_PARTITION = new Origin(-1);
    }
}
