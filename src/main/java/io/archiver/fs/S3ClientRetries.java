package io.archiver.fs;

import org.apache.flink.util.TimeUtils;

import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.retries.api.RetryStrategy;

import java.time.Duration;
import java.util.function.Function;

/**
 * How the AWS SDK client of {@link S3BucketAccess} (the archive's lease, multipart upload listings) retries: throttling
 * (503 SlowDown) for about as long as the S3 file system rides it out with the same settings ({@link S3Retries}: about a
 * minute), so that a burst of SlowDown that the job's uploads ride out does not fail a lease check. The SDK's own
 * default gives up after three attempts, within a second or two. Up to {@code attempts × (throttle limit + 1)}
 * attempts (18 with the shipped settings), random sleeps of up to the throttle interval doubling to its {@code
 * 2^(limit−1)}-fold (0.5 s to 8 s: about a minute in all, two at most). Other failures that may pass (500s, no
 * answer) are retried as often after random sleeps of up to the retry interval (0.5 s: seconds in all, as S3A's
 * seven retries). No retry quota: the client serves one subtask's requests, not a fleet's.
 */
record S3ClientRetries(int attempts, int throttleLimit, Duration throttleInterval, Duration retryInterval) {

    /** From the S3 settings {@code setting} gives by key without its prefix ({@code retry.throttle.limit}; null or blank: not set). */
    static S3ClientRetries of(Function<String, String> setting) {
        return new S3ClientRetries(
                Integer.parseInt(valueOf(setting, "attempts.maximum")),
                Integer.parseInt(valueOf(setting, "retry.throttle.limit")),
                TimeUtils.parseDuration(valueOf(setting, "retry.throttle.interval")),
                TimeUtils.parseDuration(valueOf(setting, "retry.interval")));
    }

    private static String valueOf(Function<String, String> setting, String key) {
        String value = setting.apply(key);
        return value == null || value.isBlank() ? S3Retries.SETTINGS.get("s3." + key) : value.trim();
    }

    RetryStrategy strategy() {
        Duration longest = throttleInterval.multipliedBy(1L << Math.max(0, throttleLimit - 1));
        return AwsRetryStrategy.standardRetryStrategy().toBuilder()
                .maxAttempts(Math.max(1, attempts) * (Math.max(0, throttleLimit) + 1))
                .throttlingBackoffStrategy(BackoffStrategy.exponentialDelay(throttleInterval, longest))
                .backoffStrategy(BackoffStrategy.fixedDelay(retryInterval))
                .circuitBreakerEnabled(false)
                .build();
    }
}
