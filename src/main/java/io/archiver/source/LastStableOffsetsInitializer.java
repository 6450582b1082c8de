package io.archiver.source;

import io.archiver.kafka.LastStableOffsets;

import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.common.TopicPartition;

import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * "latest" as a {@code read_committed} consumer means it: each partition's last stable offset (LSO), below
 * which every transaction is decided. The connector's own {@code latest} asks for the log end (high
 * watermark), which lies inside a transaction still open: a bounded run would wait for that transaction, and
 * a start there would skip the records the transaction had written before it. Runs in the source's split
 * enumerator with its own short-lived admin client.
 */
final class LastStableOffsetsInitializer implements OffsetsInitializer {

    private static final long serialVersionUID = 1L;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    /** Bootstrap servers and the source's client properties (security settings included). */
    private final Properties client;

    LastStableOffsetsInitializer(Properties client) {
        this.client = client;
    }

    @Override
    public Map<TopicPartition, Long> getPartitionOffsets(
            Collection<TopicPartition> partitions, PartitionOffsetsRetriever retriever) {
        try (Admin admin = Admin.create(client)) {
            return LastStableOffsets.of(admin, partitions, TIMEOUT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while reading the last stable offsets of " + partitions, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(
                    "Cannot read the last stable offsets of " + partitions + " within " + TIMEOUT.toSeconds() + " s: " + e, e);
        }
    }

    @Override
    public OffsetResetStrategy getAutoOffsetResetStrategy() {
        return OffsetResetStrategy.LATEST;
    }
}
