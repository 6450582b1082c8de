package io.archiver.config;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PositionSpecTest {

    @Test
    void everyStartFormParses() {
        assertThat(PositionSpec.start("kafka.start", "earliest", "f", "earliest").kind()).isEqualTo(PositionSpec.Kind.EARLIEST);
        assertThat(PositionSpec.start("kafka.start", "LATEST", "f", "earliest").kind()).isEqualTo(PositionSpec.Kind.LATEST);
        assertThat(PositionSpec.start("kafka.start", "committed", "f", "latest").fallback()).isEqualTo(PositionSpec.Kind.LATEST);
        assertThat(PositionSpec.start("kafka.start", "timestamp:1767225600000", "f", "earliest").timestamp()).isEqualTo(1767225600000L);
    }

    @Test
    void committedFallbackIsValidated() {
        assertThatThrownBy(() -> PositionSpec.start("kafka.start", "committed", "kafka.start.committed-fallback", "none"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("'kafka.start.committed-fallback'");
    }

    @Test
    void everyStopFormParses() {
        assertThat(PositionSpec.stop("kafka.stop", "latest").kind()).isEqualTo(PositionSpec.Kind.LATEST);
        assertThat(PositionSpec.stop("kafka.stop", "timestamp:0").kind()).isEqualTo(PositionSpec.Kind.TIMESTAMP);
        assertThat(PositionSpec.stop("kafka.stop", "offsets:orders:0=10,orders:1=0").offsets())
                .isEqualTo(Map.of(new TopicPartition("orders", 0), 10L, new TopicPartition("orders", 1), 0L));
        assertThat(PositionSpec.stop("kafka.stop", "offsets:a.b-c:3=7").offsets()).containsKey(new TopicPartition("a.b-c", 3));
    }

    @Test
    void badOffsetsEntryIsQuoted() {
        assertThatThrownBy(() -> PositionSpec.stop("kafka.stop", "offsets:orders:0=10,orders:x=1"))
                .hasMessageStartingWith("Invalid entry 'orders:x=1' in 'kafka.stop'");
        assertThatThrownBy(() -> PositionSpec.stop("kafka.stop", "offsets:orders:0=-1"))
                .hasMessageStartingWith("Invalid entry 'orders:0=-1'");
    }

    @Test
    void unknownFormNamesTheKeyAndTheAcceptedForms() {
        assertThatThrownBy(() -> PositionSpec.start("kafka.start", "beginning", "f", "earliest"))
                .hasMessage("Invalid value 'beginning' for 'kafka.start': accepted values are " + PositionSpec.START_FORMS + ".");
    }
}
