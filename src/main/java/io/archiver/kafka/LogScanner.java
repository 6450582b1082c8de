package io.archiver.kafka;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;

/**
 * Reads the offsets of many partitions' records in one sequential pass per partition, all partitions at once
 * on one consumer (a fetch serves every partition still being read), so an audit costs what reading the
 * records costs, whatever the number of holes. Keys and values are never copied out of the fetched buffers: a
 * scanner {@code withContents} hands them to the visitor as views of those buffers, others not at all.
 * A {@code read_committed} scanner sees exactly what a committed reader sees; a {@code read_uncommitted} one
 * also sees the records of aborted and open transactions.
 */
public final class LogScanner implements AutoCloseable {

    /** A partition's pass: from {@code from}; ends at the first record at or after {@code stopAt}, or when the position reaches {@code end}. */
    public record Range(long from, long stopAt, long end) {}

    /** What a pass reports. */
    public interface Visitor {
        /** A record below the partition's {@code stopAt}, in offset order. */
        void record(TopicPartition tp, long offset);

        /** {@link #record(TopicPartition, long)} with the record's headers, for visitors that read them. */
        default void record(TopicPartition tp, long offset, Headers headers) {
            record(tp, offset);
        }

        /**
         * {@link #record(TopicPartition, long, Headers)} with the whole record; of a scanner {@code withContents} its key
         * and value are {@link ByteBuffer} views of the fetched bytes, valid during the call only (else null).
         */
        default void record(TopicPartition tp, ConsumerRecord<?, ?> record) {
            record(tp, record.offset(), record.headers());
        }

        /** The partition's pass is over; {@code firstBeyond} is the first record at or after {@code stopAt}, -1 if none before {@code end}. */
        void done(TopicPartition tp, long firstBeyond);
    }

    /** Short: a poll that finds only transaction markers waits this long before the positions are checked. */
    private static final Duration POLL = Duration.ofMillis(100);
    private static final Duration PROGRESS_EVERY = Duration.ofSeconds(5);

    private final KafkaConsumer<Object, Object> consumer;
    private final Duration stallTimeout;

    /** {@code fetchBytes}: the most one fetch returns of a partition. */
    public LogScanner(Properties client, IsolationLevel isolation, int fetchBytes, Duration stallTimeout) {
        this(client, isolation, fetchBytes, stallTimeout, false);
    }

    /** {@code withContents}: visitors get each record's key and value as views of the fetched bytes. */
    public LogScanner(Properties client, IsolationLevel isolation, int fetchBytes, Duration stallTimeout, boolean withContents) {
        Properties props = new Properties();
        props.putAll(client);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "20000");
        props.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, String.valueOf(fetchBytes));
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        this.consumer = withContents
                ? new KafkaConsumer<>(props, new Viewing(), new Viewing())
                : new KafkaConsumer<>(props, new Skipping(), new Skipping());
        this.stallTimeout = stallTimeout;
    }

    /**
     * Runs the passes of {@code ranges}; {@code progress} gets a line every few seconds. Fails when no
     * partition moves for the stall timeout (a partition whose records were deleted meanwhile, a broker gone).
     */
    public void scan(Map<TopicPartition, Range> ranges, Visitor visitor, Consumer<String> progress) {
        Map<TopicPartition, Range> active = new HashMap<>();
        ranges.forEach((tp, r) -> {
            if (r.from() < r.end()) {
                active.put(tp, r);
            } else {
                visitor.done(tp, -1);
            }
        });
        consumer.assign(new ArrayList<>(active.keySet()));
        active.forEach((tp, r) -> consumer.seek(tp, r.from()));
        long read = 0;
        long started = System.nanoTime();
        long lastProgress = started;
        long lastMove = started;
        while (!active.isEmpty()) {
            int before = active.size();
            int polled = 0;
            for (ConsumerRecord<Object, Object> record : consumer.poll(POLL)) {
                polled++;
                TopicPartition tp = new TopicPartition(record.topic(), record.partition());
                Range r = active.get(tp);
                if (r == null) {
                    continue;
                }
                if (record.offset() >= r.stopAt()) {
                    finish(tp, record.offset(), active, visitor);
                } else {
                    visitor.record(tp, record);
                }
            }
            read += polled;
            for (TopicPartition tp : new ArrayList<>(active.keySet())) {
                if (consumer.position(tp) >= active.get(tp).end()) {
                    finish(tp, -1, active, visitor);
                }
            }
            long now = System.nanoTime();
            if (polled > 0 || active.size() < before) {
                lastMove = now;
            } else if (now - lastMove > stallTimeout.toNanos()) {
                List<String> stuck = new ArrayList<>();
                active.forEach((tp, r) -> stuck.add(tp + " at " + consumer.position(tp) + " of " + r.end()));
                throw new IllegalStateException("Reading Kafka made no progress for " + stallTimeout.toSeconds() + " s: " + stuck);
            }
            if (now - lastProgress > PROGRESS_EVERY.toNanos()) {
                lastProgress = now;
                double seconds = (now - started) / 1e9;
                progress.accept(String.format("  read %,d records of Kafka in %.0f s (%,.0f records/s), %d of %d partitions done",
                        read, seconds, read / seconds, ranges.size() - active.size(), ranges.size()));
            }
        }
        consumer.assign(List.of());
    }

    private void finish(TopicPartition tp, long firstBeyond, Map<TopicPartition, Range> active, Visitor visitor) {
        active.remove(tp);
        consumer.pause(List.of(tp));
        visitor.done(tp, firstBeyond);
    }

    @Override
    public void close() {
        consumer.close();
    }

    /** Keys and values are not needed: nothing is copied out of the fetched buffers. */
    private static final class Skipping implements Deserializer<Object> {
        @Override
        public Object deserialize(String topic, byte[] data) {
            return null;
        }

        @Override
        public Object deserialize(String topic, Headers headers, ByteBuffer data) {
            return null;
        }
    }

    /** Keys and values as views of the fetched buffers, for visitors that digest them. */
    private static final class Viewing implements Deserializer<Object> {
        @Override
        public Object deserialize(String topic, byte[] data) {
            return data == null ? null : ByteBuffer.wrap(data);
        }

        @Override
        public Object deserialize(String topic, Headers headers, ByteBuffer data) {
            return data;
        }
    }
}
