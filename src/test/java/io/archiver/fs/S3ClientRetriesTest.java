package io.archiver.fs;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class S3ClientRetriesTest {

    @Test
    void withoutSettingsTheClientRetriesAsTheShippedFileSystemSettingsSay() {
        S3ClientRetries retries = S3ClientRetries.of(key -> null);

        assertThat(retries).isEqualTo(new S3ClientRetries(3, 5, Duration.ofMillis(500), Duration.ofMillis(500)));
        assertThat(retries.strategy().maxAttempts()).as("3 SDK attempts in each of S3A's 6 rounds").isEqualTo(18);
    }

    @Test
    void theFileSystemsThrottleSettingsLengthenOrShortenTheClientsRetries() {
        Map<String, String> settings = Map.of("attempts.maximum", "2", "retry.throttle.limit", "9", "retry.throttle.interval", "1s",
                "retry.interval", " ");

        S3ClientRetries retries = S3ClientRetries.of(settings::get);

        assertThat(retries).isEqualTo(new S3ClientRetries(2, 9, Duration.ofSeconds(1), Duration.ofMillis(500)));
        assertThat(retries.strategy().maxAttempts()).isEqualTo(20);
    }
}
