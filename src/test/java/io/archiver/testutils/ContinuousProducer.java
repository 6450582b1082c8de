package io.archiver.testutils;

import io.archiver.record.ArchiveRecord;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.RecordMetadata;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;

/**
 * Keeps producing {@link TestRecords} to a topic in the background, so faults hit the archiver while data
 * is still arriving. Stops by itself after {@code total} records; what Kafka ends up holding for a
 * {@code read_committed} reader (read back with {@link KafkaTopicReader}) is the ground truth, so broker
 * restarts and producer retries cannot fool the check.
 *
 * <p>Every other batch is written by a transactional producer, one transaction per batch spanning every
 * partition, and every {@value #ABORT_EVERY}th of those transactions is aborted after its records reached
 * the log: the topic interleaves plain records, committed transactions, aborted records and transaction
 * markers, as the output of Kafka Streams or Flink's exactly-once {@code KafkaSink} does.
 */
public final class ContinuousProducer implements AutoCloseable {

    static final int ABORT_EVERY = 3;

    private final Thread thread;
    private final AtomicInteger sent = new AtomicInteger();
    private final AtomicInteger committed = new AtomicInteger();
    private final AtomicInteger aborted = new AtomicInteger();
    /** Per partition: the offset of the last record known visible to a read_committed reader. */
    private final Map<Integer, Long> lastCommitted = new ConcurrentHashMap<>();
    private final AtomicReference<Exception> failure = new AtomicReference<>();
    private final boolean everyRecordKeyed;
    private final IntFunction<byte[]> values;
    private volatile boolean stopped;

    public ContinuousProducer(String bootstrap, String topic, int partitions, int total, int perSecond) {
        this(bootstrap, topic, partitions, total, perSecond, TestRecords.Timestamps.IN_ORDER, false);
    }

    public ContinuousProducer(
            String bootstrap, String topic, int partitions, int total, int perSecond, TestRecords.Timestamps timestamps) {
        this(bootstrap, topic, partitions, total, perSecond, timestamps, false);
    }

    /** {@code everyRecordKeyed}: no null keys (a compacted topic refuses them). */
    public ContinuousProducer(String bootstrap, String topic, int partitions, int total, int perSecond,
            TestRecords.Timestamps timestamps, boolean everyRecordKeyed) {
        this(bootstrap, topic, partitions, total, perSecond, timestamps, everyRecordKeyed, null);
    }

    /** {@code values}: record {@code i}'s value (a registry payload, say) instead of {@link TestRecords}' JSON; null keeps those. */
    public ContinuousProducer(String bootstrap, String topic, int partitions, int total, int perSecond,
            TestRecords.Timestamps timestamps, boolean everyRecordKeyed, IntFunction<byte[]> values) {
        this.everyRecordKeyed = everyRecordKeyed;
        this.values = values;
        this.thread = new Thread(() -> run(bootstrap, topic, partitions, total, perSecond, timestamps), "producer-" + topic);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    private void run(String bootstrap, String topic, int partitions, int total, int perSecond, TestRecords.Timestamps timestamps) {
        int batch = Math.max(1, perSecond / 20);
        try (KafkaProducer<byte[], byte[]> plain = TestRecords.producer(bootstrap);
                Transactions transactions = new Transactions(bootstrap, "continuous-" + topic)) {
            for (int tick = 0; !stopped && failure.get() == null && sent.get() < total; tick++) {
                long started = System.nanoTime();
                boolean transactional = tick % 2 == 1;
                boolean abort = transactional && (tick / 2) % ABORT_EVERY == ABORT_EVERY - 1;
                List<ArchiveRecord> records = new ArrayList<>(batch);
                for (int k = 0; k < batch && sent.get() < total; k++) {
                    int i = sent.getAndIncrement();
                    ArchiveRecord r = TestRecords.record(topic, i % partitions, i, timestamps);
                    if (everyRecordKeyed && r.getKey() == null) {
                        r.setKey(("key-" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8));
                    }
                    if (values != null) {
                        r.setValue(values.apply(i));
                    }
                    records.add(r);
                }
                if (transactional) {
                    transactions.send(records, abort);
                } else {
                    for (ArchiveRecord r : records) {
                        plain.send(TestRecords.toProducerRecord(r), (md, e) -> {
                            if (e != null) {
                                failure.compareAndSet(null, e);
                            } else {
                                committed.incrementAndGet();
                                lastCommitted.merge(md.partition(), md.offset(), Math::max);
                            }
                        });
                    }
                }
                long sleep = 50 - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                if (sleep > 0) {
                    Thread.sleep(sleep);
                }
            }
            plain.flush();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            failure.compareAndSet(null, e);
        }
    }

    /**
     * The transactional half. A transaction whose sends fail with an abortable error is aborted; a producer
     * in a fatal state (its epoch bumped while the broker restarted) is replaced by a new one of the same
     * transactional id, whose start aborts what the old one left open. Only transactions whose commit
     * returned count as committed: an unknown outcome is left to the read-back, which is the ground truth.
     */
    private final class Transactions implements AutoCloseable {
        private final String bootstrap;
        private final String id;
        private KafkaProducer<byte[], byte[]> producer;

        Transactions(String bootstrap, String id) {
            this.bootstrap = bootstrap;
            this.id = id;
        }

        void send(List<ArchiveRecord> records, boolean abort) throws InterruptedException {
            for (int attempt = 0; ; attempt++) {
                try {
                    if (producer == null) {
                        producer = TestRecords.transactionalProducer(bootstrap, id);
                    }
                    producer.beginTransaction();
                    List<Future<RecordMetadata>> acks = new ArrayList<>(records.size());
                    for (ArchiveRecord r : records) {
                        acks.add(producer.send(TestRecords.toProducerRecord(r)));
                    }
                    producer.flush(); // aborted records reach the log before their abort marker
                    for (Future<RecordMetadata> ack : acks) {
                        ack.get();
                    }
                    if (abort) {
                        producer.abortTransaction();
                        aborted.addAndGet(records.size());
                    } else {
                        producer.commitTransaction();
                        committed.addAndGet(records.size());
                        for (Future<RecordMetadata> ack : acks) {
                            lastCommitted.merge(ack.get().partition(), ack.get().offset(), Math::max);
                        }
                    }
                    return;
                } catch (InterruptedException e) {
                    throw e;
                } catch (Exception e) {
                    // broker restarts surface here; the records of this attempt are aborted, or their
                    // outcome is unknown: the read-back decides
                    if (attempt >= 20) {
                        failure.compareAndSet(null, e);
                        return;
                    }
                    closeProducer();
                    Thread.sleep(500);
                }
            }
        }

        private void closeProducer() {
            if (producer != null) {
                producer.close(Duration.ofSeconds(5));
                producer = null;
            }
        }

        @Override
        public void close() {
            closeProducer();
        }
    }

    /** Records handed to the producers so far, aborted ones included. */
    public int sent() {
        return sent.get();
    }

    /** Records known to be visible to a read_committed reader: acknowledged plain ones and committed transactions. */
    public int committed() {
        return committed.get();
    }

    /** Per partition, the offset of the last record known visible to a read_committed reader (partitions with none left out). */
    public Map<Integer, Long> lastCommittedOffsets() {
        return Map.copyOf(lastCommitted);
    }

    /** Records written in transactions that were then aborted: in the log, never visible to a committed reader. */
    public int aborted() {
        return aborted.get();
    }

    /** Waits (bounded) until every record is sent and acknowledged; fails if a send failed. */
    public void awaitDone(long timeoutMillis) throws Exception {
        thread.join(timeoutMillis);
        if (thread.isAlive()) {
            throw new AssertionError("Producer did not finish within " + timeoutMillis + " ms (sent " + sent() + ")");
        }
        if (failure.get() != null) {
            throw new AssertionError("A produce request failed", failure.get());
        }
    }

    @Override
    public void close() throws InterruptedException {
        stopped = true;
        thread.join(60_000);
    }
}
