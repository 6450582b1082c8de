package io.archiver.source;

import io.archiver.config.ConfigException;

import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.kafka.common.IsolationLevel;
import org.junit.jupiter.api.Test;

import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KafkaPositionsTest {

    private static final IsolationLevel COMMITTED = IsolationLevel.READ_COMMITTED;
    private static final Properties CLIENT = new Properties();

    @Test
    void latestIsTheLastStableOffsetForACommittedReaderAndTheLogEndOtherwise() {
        assertThat(KafkaPositions.stop("kafka.stop", "latest", COMMITTED, CLIENT)).isInstanceOf(LastStableOffsetsInitializer.class);
        assertThat(KafkaPositions.start("kafka.start", "latest", "f", "earliest", COMMITTED, CLIENT))
                .isInstanceOf(LastStableOffsetsInitializer.class);
        assertThat(KafkaPositions.stop("kafka.stop", "latest", IsolationLevel.READ_UNCOMMITTED, CLIENT))
                .isNotInstanceOf(LastStableOffsetsInitializer.class);
    }

    @Test
    void everyStartFormParses() {
        for (String spec : new String[] {"earliest", "LATEST", "committed", "timestamp:1767225600000"}) {
            assertThat(KafkaPositions.start("kafka.start", spec, "f", "earliest", COMMITTED, CLIENT)).isInstanceOf(OffsetsInitializer.class);
        }
    }

    @Test
    void committedFallbackIsValidated() {
        assertThatThrownBy(() -> KafkaPositions.start("kafka.start", "committed", "kafka.start.committed-fallback", "none", COMMITTED, CLIENT))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("'kafka.start.committed-fallback'");
    }

    @Test
    void everyStopFormParses() {
        for (String spec : new String[] {"latest", "timestamp:0", "offsets:orders:0=10,orders:1=0", "offsets:a.b-c:3=7"}) {
            assertThat(KafkaPositions.stop("kafka.stop", spec, COMMITTED, CLIENT)).isInstanceOf(OffsetsInitializer.class);
        }
    }

    @Test
    void badOffsetsEntryIsQuoted() {
        assertThatThrownBy(() -> KafkaPositions.stop("kafka.stop", "offsets:orders:0=10,orders:x=1", COMMITTED, CLIENT))
                .hasMessageStartingWith("Invalid entry 'orders:x=1' in 'kafka.stop'");
        assertThatThrownBy(() -> KafkaPositions.stop("kafka.stop", "offsets:orders:0=-1", COMMITTED, CLIENT))
                .hasMessageStartingWith("Invalid entry 'orders:0=-1'");
    }
}
