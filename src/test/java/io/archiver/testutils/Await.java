package io.archiver.testutils;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;

/** Polls a condition until it holds or a deadline passes; never an open-ended wait. */
public final class Await {

    private static final Duration POLL = Duration.ofMillis(200);

    private Await() {}

    public static void until(String what, Duration timeout, Callable<Boolean> condition) throws Exception {
        until(what, timeout, condition, () -> "");
    }

    /** Like {@link #until(String, Duration, Callable)}; on timeout the message ends with {@code state}. */
    public static void until(String what, Duration timeout, Callable<Boolean> condition, Callable<String> state)
            throws Exception {
        Instant deadline = Instant.now().plus(timeout);
        while (!condition.call()) {
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("Timed out after " + timeout + " waiting for " + what + "; " + state.call());
            }
            Thread.sleep(POLL.toMillis());
        }
    }
}
