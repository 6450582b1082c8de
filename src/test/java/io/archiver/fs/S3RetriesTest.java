package io.archiver.fs;

import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class S3RetriesTest {

    @Test
    void theShippedClusterConfigurationsCarryTheChosenRetries() throws IOException {
        String session = Files.readString(Path.of("conf", "flink", "config.yaml"));
        S3Retries.SETTINGS.forEach((key, value) -> assertThat(session).as("conf/flink/config.yaml").contains(key + ": " + value + "\n"));
        for (String manifest : new String[] {"flink-deployment.yaml", "flink-session-job.yaml"}) {
            String yaml = Files.readString(Path.of("conf", "kubernetes", manifest));
            S3Retries.SETTINGS.forEach((key, value) -> assertThat(yaml).as(manifest)
                    .containsAnyOf(key + ": " + value + "\n", key + ": \"" + value + "\"\n"));
        }
    }

    @Test
    void settingsOfTheirOwnWinUnderEitherName() {
        Configuration conf = Configuration.fromMap(Map.of("s3.retry.throttle.limit", "9", "fs.s3a.attempts.maximum", "1"));
        Configuration with = S3Retries.withDefaults(conf);
        assertThat(with.toMap()).containsEntry("s3.retry.throttle.limit", "9").containsEntry("fs.s3a.attempts.maximum", "1")
                .doesNotContainKey("s3.attempts.maximum").containsEntry("s3.retry.throttle.interval", "500ms");
    }
}
