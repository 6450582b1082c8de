package io.archiver.kafka;

import io.archiver.record.ArchiveRecord;
import io.archiver.testutils.Await;
import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TestRecords;

import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The archive lag metric counts from the first unarchived committed record to the last stable offset, and
 * reads partition tails a bounded number at a time.
 */
@ExtendWith(SharedStack.class)
class LogEndProbeITCase {

    @Test
    void fullyArchivedTransactionalPartitionHasNoLagBehindItsCommitMarker() throws Exception {
        SharedStack stack = SharedStack.get();
        String topic = SharedStack.uniqueName("lag-marker");
        stack.kafka().createTopic(topic, 1);
        List<ArchiveRecord> committed = TestRecords.produceTransactions(stack.kafka().bootstrapServers(), topic, 1, 0, 300, 100, 3);
        long lastCommitted = committed.get(committed.size() - 1).getOffset();
        TopicPartition tp = new TopicPartition(topic, 0);
        Properties client = new Properties();
        client.setProperty("bootstrap.servers", stack.kafka().bootstrapServers());

        try (LogEndProbe probe = new LogEndProbe(client)) {
            // archived up to the last committed record: after it come a marker, an aborted transaction and its marker
            assertThat(lag(probe, tp, lastCommitted + 1)).isZero();
            // one committed record short of that
            long secondLast = committed.get(committed.size() - 2).getOffset();
            assertThat(lag(probe, tp, secondLast + 1)).isEqualTo(lastStable(stack, tp) - lastCommitted);
        }
    }

    @Test
    void manyPartitionsAtRestHaveTheirTailsReadAFewHundredPerMeasurement() throws Exception {
        SharedStack stack = SharedStack.get();
        String topic = SharedStack.uniqueName("lag-many");
        int partitions = LogEndProbe.TAIL_CHECKS_PER_MEASUREMENT + 44;
        stack.kafka().createTopic(topic, partitions);
        // three transactions over every partition, the third aborted: after each partition's last committed
        // record come a marker, an aborted record and its marker
        List<ArchiveRecord> committed = TestRecords.produceTransactions(
                stack.kafka().bootstrapServers(), topic, partitions, 0, 3 * partitions, partitions, 3);
        Map<TopicPartition, Long> archivedEnds = new HashMap<>();
        committed.forEach(r -> archivedEnds.merge(new TopicPartition(topic, r.getPartition()), r.getOffset() + 1, Math::max));
        Properties client = new Properties();
        client.setProperty("bootstrap.servers", stack.kafka().bootstrapServers());
        // the coordinator writes the abort markers after the producer's abort returns
        Await.until("abort markers of " + topic + " written", Duration.ofSeconds(30),
                () -> lastStable(stack, archivedEnds.keySet()).entrySet().stream().allMatch(e -> e.getValue() == archivedEnds.get(e.getKey()) + 3));

        try (LogEndProbe probe = new LogEndProbe(client)) {
            Map<TopicPartition, Long> first = lags(probe, archivedEnds);
            assertThat(first.values().stream().filter(l -> l == 0).count()).as("partitions scanned at the first measurement")
                    .isEqualTo(LogEndProbe.TAIL_CHECKS_PER_MEASUREMENT);
            assertThat(first.values().stream().filter(l -> l == 3).count()).as("partitions left at their distance for now").isEqualTo(44);
            assertThat(lags(probe, archivedEnds).values()).as("every partition after the second measurement").containsOnly(0L);
        }
    }

    private static Map<TopicPartition, Long> lags(LogEndProbe probe, Map<TopicPartition, Long> archivedEnds) throws Exception {
        AtomicReference<Map<TopicPartition, Long>> lags = new AtomicReference<>();
        probe.refresh(archivedEnds, lags::set);
        Await.until("lags of " + archivedEnds.size() + " partitions", Duration.ofSeconds(30), () -> lags.get() != null);
        assertThat(lags.get()).hasSize(archivedEnds.size());
        return lags.get();
    }

    private static long lag(LogEndProbe probe, TopicPartition tp, long archivedEnd) throws Exception {
        return lags(probe, Map.of(tp, archivedEnd)).get(tp);
    }

    private static Map<TopicPartition, Long> lastStable(SharedStack stack, Set<TopicPartition> partitions) throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        partitions.forEach(tp -> latest.put(tp, OffsetSpec.latest()));
        Map<TopicPartition, Long> stable = new HashMap<>();
        try (var admin = stack.kafka().admin()) {
            admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get()
                    .forEach((tp, info) -> stable.put(tp, info.offset()));
        }
        return stable;
    }

    private static long lastStable(SharedStack stack, TopicPartition tp) throws Exception {
        return lastStable(stack, Set.of(tp)).get(tp);
    }
}
