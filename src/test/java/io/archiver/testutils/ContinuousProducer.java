package io.archiver.testutils;

import io.archiver.record.ArchiveRecord;

import org.apache.kafka.clients.producer.KafkaProducer;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Keeps producing {@link TestRecords} to a topic in the background, so faults hit the archiver while data
 * is still arriving. Stops by itself after {@code total} records; what Kafka ends up holding (read back
 * with {@link KafkaTopicReader}) is the ground truth, so broker restarts and producer retries cannot fool
 * the check.
 */
public final class ContinuousProducer implements AutoCloseable {

    private final Thread thread;
    private final AtomicInteger sent = new AtomicInteger();
    private final AtomicReference<Exception> failure = new AtomicReference<>();
    private volatile boolean stopped;

    public ContinuousProducer(String bootstrap, String topic, int partitions, int total, int perSecond) {
        this(bootstrap, topic, partitions, total, perSecond, TestRecords.Timestamps.IN_ORDER);
    }

    public ContinuousProducer(
            String bootstrap, String topic, int partitions, int total, int perSecond, TestRecords.Timestamps timestamps) {
        this.thread = new Thread(() -> run(bootstrap, topic, partitions, total, perSecond, timestamps), "producer-" + topic);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    private void run(String bootstrap, String topic, int partitions, int total, int perSecond, TestRecords.Timestamps timestamps) {
        int batch = Math.max(1, perSecond / 20);
        try (KafkaProducer<byte[], byte[]> producer = TestRecords.producer(bootstrap)) {
            while (!stopped && sent.get() < total) {
                long started = System.nanoTime();
                for (int k = 0; k < batch && sent.get() < total; k++) {
                    int i = sent.getAndIncrement();
                    ArchiveRecord r = TestRecords.record(topic, i % partitions, i, timestamps);
                    producer.send(TestRecords.toProducerRecord(r), (md, e) -> {
                        if (e != null) {
                            failure.compareAndSet(null, e);
                        }
                    });
                }
                long sleep = 50 - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                if (sleep > 0) {
                    Thread.sleep(sleep);
                }
            }
            producer.flush();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            failure.compareAndSet(null, e);
        }
    }

    /** Records handed to the producer so far. */
    public int sent() {
        return sent.get();
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
