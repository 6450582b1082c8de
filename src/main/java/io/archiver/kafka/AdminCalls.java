package io.archiver.kafka;

import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.errors.RetriableException;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Admin requests that outlast a broker's death. A call that asks every broker (listing transactions) or a coordinator
 * the client found on a broker that has just died keeps asking that broker until the call's timeout, although the
 * cluster moves the broker's partitions and coordinators to the others within its session timeout; a fresh call asks
 * the brokers alive then. So each attempt gets a bounded time, and one that times out or fails with a retriable error
 * is made again, until the deadline.
 */
public final class AdminCalls {

    private static final Duration ATTEMPT = Duration.ofSeconds(10);
    private static final Duration BACKOFF = Duration.ofMillis(500);

    private AdminCalls() {}

    /** One attempt of an admin call, given the milliseconds it may take (its options' {@code timeoutMs}). */
    public interface Call<T> {
        KafkaFuture<T> start(int timeoutMs);
    }

    /** The answer of {@code call}, attempted again while it times out or fails retriably, for up to {@code deadline}. */
    public static <T> T retried(String what, Duration deadline, Call<T> call) throws ExecutionException, InterruptedException, TimeoutException {
        return retried(what, deadline, ATTEMPT, call);
    }

    /** {@link #retried(String, Duration, Call)} with each attempt given up to {@code attempts}. */
    static <T> T retried(String what, Duration deadline, Duration attempts, Call<T> call)
            throws ExecutionException, InterruptedException, TimeoutException {
        long end = System.nanoTime() + deadline.toNanos();
        while (true) {
            int attempt = (int) Math.max(1, Math.min(attempts.toMillis(), TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime())));
            try {
                return call.start(attempt).get(attempt + BACKOFF.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof RetriableException) || System.nanoTime() > end) {
                    throw e;
                }
            } catch (TimeoutException e) {
                if (System.nanoTime() > end) {
                    throw new TimeoutException("Kafka did not answer " + what + " within " + deadline.toMillis() + " ms");
                }
            }
            TimeUnit.MILLISECONDS.sleep(BACKOFF.toMillis()); // a retry's back-off, as the client's own
        }
    }
}
