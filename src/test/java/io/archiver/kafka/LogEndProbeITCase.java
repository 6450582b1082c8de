package io.archiver.kafka;

import io.archiver.record.ArchiveRecord;
import io.archiver.testutils.Await;
import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TestRecords;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** The archive lag metric counts from the first unarchived committed record to the last stable offset. */
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

    private static long lag(LogEndProbe probe, TopicPartition tp, long archivedEnd) throws Exception {
        AtomicReference<Long> lag = new AtomicReference<>();
        probe.refresh(Map.of(tp, archivedEnd), lags -> lag.set(lags.get(tp)));
        Await.until("lag of " + tp, Duration.ofSeconds(30), () -> lag.get() != null);
        return lag.get();
    }

    private static long lastStable(SharedStack stack, TopicPartition tp) throws Exception {
        try (var admin = stack.kafka().admin()) {
            return admin.listOffsets(Map.of(tp, org.apache.kafka.clients.admin.OffsetSpec.latest()),
                            new org.apache.kafka.clients.admin.ListOffsetsOptions(org.apache.kafka.common.IsolationLevel.READ_COMMITTED))
                    .all().get().get(tp).offset();
        }
    }
}
