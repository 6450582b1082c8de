package io.archiver.source;

import io.archiver.config.ConfigException;

import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KafkaPositionsTest {

    @Test
    void everyStartFormParses() {
        for (String spec : new String[] {"earliest", "LATEST", "committed", "timestamp:1767225600000"}) {
            assertThat(KafkaPositions.start("kafka.start", spec, "f", "earliest")).isInstanceOf(OffsetsInitializer.class);
        }
    }

    @Test
    void committedFallbackIsValidated() {
        assertThatThrownBy(() -> KafkaPositions.start("kafka.start", "committed", "kafka.start.committed-fallback", "none"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("'kafka.start.committed-fallback'");
    }

    @Test
    void everyStopFormParses() {
        for (String spec : new String[] {"latest", "timestamp:0", "offsets:orders:0=10,orders:1=0", "offsets:a.b-c:3=7"}) {
            assertThat(KafkaPositions.stop("kafka.stop", spec)).isInstanceOf(OffsetsInitializer.class);
        }
    }

    @Test
    void badOffsetsEntryIsQuoted() {
        assertThatThrownBy(() -> KafkaPositions.stop("kafka.stop", "offsets:orders:0=10,orders:x=1"))
                .hasMessageStartingWith("Invalid entry 'orders:x=1' in 'kafka.stop'");
        assertThatThrownBy(() -> KafkaPositions.stop("kafka.stop", "offsets:orders:0=-1"))
                .hasMessageStartingWith("Invalid entry 'orders:0=-1'");
    }
}
