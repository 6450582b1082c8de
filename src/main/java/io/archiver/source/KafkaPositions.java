package io.archiver.source;

import io.archiver.config.PositionSpec;

import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.common.IsolationLevel;

import java.util.Properties;

/**
 * Turns configured start and stop positions into the connector's {@link OffsetsInitializer}s. {@code latest}
 * is where a consumer of the source's isolation level starts or stops: the last stable offset for
 * read_committed, never inside a transaction still open (which would hold a bounded run until it ends, and
 * skip at a start the records it had written).
 */
public final class KafkaPositions {

    private KafkaPositions() {}

    /** {@code client}: bootstrap servers and client properties, to ask for last stable offsets. */
    public static OffsetsInitializer of(PositionSpec spec, IsolationLevel isolation, Properties client) {
        switch (spec.kind()) {
            case EARLIEST:
                return new LogStartOffsetsInitializer();
            case LATEST:
                return isolation == IsolationLevel.READ_COMMITTED
                        ? new LastStableOffsetsInitializer(client)
                        : OffsetsInitializer.latest();
            case COMMITTED:
                return OffsetsInitializer.committedOffsets(
                        spec.fallback() == PositionSpec.Kind.LATEST ? OffsetResetStrategy.LATEST : OffsetResetStrategy.EARLIEST);
            case TIMESTAMP:
                return OffsetsInitializer.timestamp(spec.timestamp());
            default:
                return OffsetsInitializer.offsets(spec.offsets(), OffsetResetStrategy.LATEST);
        }
    }
}
