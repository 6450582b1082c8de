package io.archiver.fs;

import org.apache.flink.configuration.Configuration;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How long the S3 file system retries a request S3 refuses, chosen for an archive that commits every checkpoint:
 * throttling (503 SlowDown) and server errors are retried for up to about a minute (a burst of throttling is ridden
 * out, the job never notices), then the request fails, and with it the checkpoint, so the job fails over and resumes
 * from the last completed checkpoint instead of hanging on S3 for as long as Hadoop's defaults would (twenty SDK
 * attempts, each retried twenty times by S3A with exponential backoff: hours). The cluster's settings win: these are
 * what {@code conf/flink/config.yaml} and the Kubernetes manifests ship, and what a job run in this JVM (bin/archiver,
 * the tests) uses unless its {@code flink.s3.*} settings say otherwise. docs/operations.md, "S3 that throttles".
 */
public final class S3Retries {

    /** Flink's keys for the S3 file system ({@code s3.*} becomes Hadoop's {@code fs.s3a.*}) and the values chosen. */
    public static final Map<String, String> SETTINGS = settings();

    private S3Retries() {}

    private static Map<String, String> settings() {
        Map<String, String> s = new LinkedHashMap<>();
        // the AWS SDK's own attempts per S3A attempt (it backs off on throttling by itself): few, S3A retries on top
        s.put("s3.attempts.maximum", "3");
        // S3A's retries of throttled requests: random sleeps of up to 0.5 s x 2^n, n = 1..5 (31 s at most)
        s.put("s3.retry.throttle.limit", "5");
        s.put("s3.retry.throttle.interval", "500ms");
        // S3A's retries of other failures that may pass (500s, connection resets): Hadoop's default, 7 x 500 ms
        s.put("s3.retry.limit", "7");
        s.put("s3.retry.interval", "500ms");
        return java.util.Collections.unmodifiableMap(s);
    }

    /** {@code conf} with the chosen retries wherever it sets none. */
    public static Configuration withDefaults(Configuration conf) {
        Configuration out = new Configuration(conf);
        SETTINGS.forEach((key, value) -> {
            if (!conf.containsKey(key) && !conf.containsKey("fs.s3a." + key.substring("s3.".length()))) {
                out.setString(key, value);
            }
        });
        return out;
    }
}
