package io.archiver.kafka;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** The last stable offsets of partitions: where a read_committed reader stops, below which every transaction is decided. */
public final class LastStableOffsets {

    private LastStableOffsets() {}

    /** Asks {@code admin} for the last stable offset of every partition of {@code partitions}, waiting up to {@code timeout}. */
    public static Map<TopicPartition, Long> of(Admin admin, Collection<TopicPartition> partitions, Duration timeout)
            throws ExecutionException, InterruptedException, TimeoutException {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        partitions.forEach(tp -> latest.put(tp, OffsetSpec.latest()));
        Map<TopicPartition, Long> offsets = new HashMap<>();
        admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                .all().get(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .forEach((tp, info) -> offsets.put(tp, info.offset()));
        return offsets;
    }
}
