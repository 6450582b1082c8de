package io.archiver.capture;

import org.apache.kafka.common.TopicPartition;

import java.time.Instant;
import java.util.Map;

/**
 * A consumer group's committed offsets of archived partitions as captured at {@code capturedAt}: each the
 * offset of the next record the group would read.
 */
public record GroupOffsets(String group, Instant capturedAt, Map<TopicPartition, Long> offsets) {

    public GroupOffsets {
        offsets = Map.copyOf(offsets);
    }
}
