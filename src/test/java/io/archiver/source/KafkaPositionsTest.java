package io.archiver.source;

import io.archiver.config.PositionSpec;

import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

class KafkaPositionsTest {

    private static final Properties CLIENT = new Properties();
    private static final PositionSpec LATEST = new PositionSpec(PositionSpec.Kind.LATEST, -1, Map.of(), PositionSpec.Kind.EARLIEST);

    @Test
    void latestIsTheLastStableOffsetForACommittedReaderAndTheLogEndOtherwise() {
        assertThat(KafkaPositions.of(LATEST, IsolationLevel.READ_COMMITTED, CLIENT)).isInstanceOf(LastStableOffsetsInitializer.class);
        assertThat(KafkaPositions.of(LATEST, IsolationLevel.READ_UNCOMMITTED, CLIENT)).isNotInstanceOf(LastStableOffsetsInitializer.class);
    }

    @Test
    void earliestStartsEveryPartitionAtOffsetZeroWithoutAskingKafkaAndResetsToTheLogStart() {
        OffsetsInitializer earliest = KafkaPositions.of(
                new PositionSpec(PositionSpec.Kind.EARLIEST, -1, Map.of(), PositionSpec.Kind.EARLIEST), IsolationLevel.READ_COMMITTED, CLIENT);
        TopicPartition served = new TopicPartition("orders", 0);
        TopicPartition leaderless = new TopicPartition("orders", 1);
        // no retriever: a partition without a leader cannot keep the job from starting
        assertThat(earliest.getPartitionOffsets(List.of(served, leaderless), null)).isEqualTo(Map.of(served, 0L, leaderless, 0L));
        assertThat(earliest.getAutoOffsetResetStrategy()).as("a log that starts later: the consumer moves to its start")
                .isEqualTo(OffsetResetStrategy.EARLIEST);
    }

    @Test
    void committedFallsBackWhereConfigured() {
        OffsetsInitializer committed = KafkaPositions.of(
                new PositionSpec(PositionSpec.Kind.COMMITTED, -1, Map.of(), PositionSpec.Kind.LATEST), IsolationLevel.READ_COMMITTED, CLIENT);
        assertThat(committed.getAutoOffsetResetStrategy()).isEqualTo(OffsetResetStrategy.LATEST);
    }
}
