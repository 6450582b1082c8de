package io.archiver.job;

import io.archiver.config.ArchiverConfig;
import io.archiver.job.Preflight.PreflightException;
import io.archiver.testutils.CapturedLogs;
import io.archiver.testutils.SharedStack;

import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Isolated;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Wrong settings fail before submission, within a bounded time, with a message that says what to fix. */
@ExtendWith(SharedStack.class)
@Isolated
class PreflightITCase {

    private final Preflight preflight = new Preflight(Duration.ofSeconds(3), fileSystems(Map.of()));

    @Test
    void passesOnAReachableBrokerExistingTopicAndWritableBucket() throws Exception {
        assertThatCode(() -> preflight.check(config(existingTopic(), Map.of()))).doesNotThrowAnyException();
    }

    @Test
    void anAddressNothingListensOnIsNamedWithinSecondsWithTheSetting() throws Exception {
        ArchiverConfig config = config(existingTopic(), Map.of("kafka.bootstrap.servers", "127.0.0.1:1,no-such-host.invalid:9092"));
        long began = System.nanoTime();
        assertThatThrownBy(() -> preflight.check(config))
                .isInstanceOf(PreflightException.class)
                .hasMessageContaining("Cannot reach Kafka at '127.0.0.1:1,no-such-host.invalid:9092': 127.0.0.1:1: connection refused; "
                        + "no-such-host.invalid:9092: unknown host")
                .hasMessageContaining("kafka.bootstrap.servers");
        assertThat(java.time.Duration.ofNanos(System.nanoTime() - began)).as("answered at once, not after the timeout")
                .isLessThan(java.time.Duration.ofSeconds(5));
    }

    @Test
    void aSchemaRegistryThatRefusesOrIsNotThereIsNamedWithinSeconds() throws Exception {
        String registry = SharedStack.get().registry().url();
        assertThatCode(() -> preflight.check(config(existingTopic(), Map.of("record.value.format", "avro", "schema-registry.url", registry))))
                .doesNotThrowAnyException();

        long began = System.nanoTime();
        assertThatThrownBy(() -> preflight.check(config(existingTopic(), Map.of("record.value.format", "avro",
                "schema-registry.url", "http://127.0.0.1:1", "schema-registry.basic-auth.username", "archiver",
                "schema-registry.basic-auth.password", "registry-secret-5c2"))))
                .isInstanceOf(PreflightException.class)
                .hasMessage("Cannot reach the Schema Registry at 'http://127.0.0.1:1': connection refused. Check 'schema-registry.url'.");
        assertThat(java.time.Duration.ofNanos(System.nanoTime() - began)).isLessThan(java.time.Duration.ofSeconds(5));

        String withoutApiPath = registry.substring(0, registry.indexOf("/apis"));
        assertThatThrownBy(() -> preflight.check(config(existingTopic(), Map.of("record.value.format", "avro", "schema-registry.url", withoutApiPath))))
                .isInstanceOf(PreflightException.class)
                .hasMessageStartingWith("The Schema Registry refused the archiver: the schema registry " + withoutApiPath + " answered HTTP 404")
                .hasMessageContaining("http://apicurio:8080/apis/ccompat/v7");
    }

    @Test
    void unknownTopicsAreEachNamedWithACloseExistingName() throws Exception {
        String existing = existingTopic();
        String typo = existing.replaceFirst("preflight", "prefligth");
        ArchiverConfig config = config(existing, Map.of("kafka.topics", existing + "," + typo + ",no-such-topic-at-all"));
        assertThatThrownBy(() -> preflight.check(config))
                .isInstanceOf(PreflightException.class)
                .hasMessageContaining("2 topics of 'kafka.topics' do not exist")
                .hasMessageContaining("'" + typo + "' (did you mean '" + existing + "'?)")
                .hasMessageContaining("'no-such-topic-at-all'")
                .hasMessageNotContaining("'" + existing + "',");
    }

    @Test
    void missingBucketIsReported() throws Exception {
        ArchiverConfig config = config(existingTopic(), Map.of("sink.path", "s3://no-such-bucket/archive"));
        assertThatThrownBy(() -> preflight.check(config))
                .isInstanceOf(PreflightException.class)
                .hasMessageContaining("Cannot write to the archive at 's3://no-such-bucket/archive'")
                .hasMessageContaining("bucket exists");
    }

    @Test
    void aWrongSecretIsReportedAtOnceNamingTheSettings() throws Exception {
        ArchiverConfig config = config(existingTopic(), Map.of());
        Preflight wrongSecret = new Preflight(Duration.ofSeconds(30), fileSystems(Map.of("s3.secret-key", "wrong-secret")));
        long start = System.nanoTime();
        try (CapturedLogs logs = CapturedLogs.start()) {
            assertThatThrownBy(() -> wrongSecret.check(config))
                    .isInstanceOf(PreflightException.class)
                    .hasMessageContaining("The credentials may not write to the archive at '" + config.sinkPath() + "'")
                    .hasMessageContaining("403 (SignatureDoesNotMatch)")
                    .hasMessageContaining("s3.access-key and s3.secret-key")
                    .hasMessageNotContaining("wrong-secret");
            assertThat(logs.containing("wrong-secret")).isEmpty();
        }
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void aFileSystemSettingWithAUnitIsNamedInsteadOfTheCredentials() throws Exception {
        ArchiverConfig config = config(existingTopic(), Map.of());
        Preflight withUnit = new Preflight(Duration.ofSeconds(30), fileSystems(Map.of("s3.upload.min.part.size", "16mb")));
        assertThatThrownBy(() -> withUnit.check(config))
                .isInstanceOf(PreflightException.class)
                .hasMessageContaining("the S3 file system cannot read s3.upload.min.part.size = \"16mb\"")
                .hasMessageContaining("sizes in bytes, without a unit")
                .hasMessageContaining("flink.s3.upload.min.part.size")
                .hasMessageNotContaining("credentials");
    }

    @Test
    void anS3EndpointThatDoesNotAnswerFailsWithinTheTimeout() throws Exception {
        ArchiverConfig config = config(existingTopic(), Map.of());
        try (java.net.ServerSocket silent = new java.net.ServerSocket(0)) {
            Preflight unanswered = new Preflight(
                    Duration.ofSeconds(2), fileSystems(Map.of("s3.endpoint", "http://127.0.0.1:" + silent.getLocalPort())));
            long start = System.nanoTime();
            assertThatThrownBy(() -> unanswered.check(config))
                    .isInstanceOf(PreflightException.class)
                    .hasMessageContaining("did not answer within 2 s")
                    .hasMessageContaining("s3.endpoint");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        }
    }

    /** The S3 settings of the shared stack's server, with {@code overrides}. */
    private static Configuration fileSystems(Map<String, String> overrides) {
        Map<String, String> settings = new java.util.HashMap<>(SharedStack.get().s3().flinkSettings());
        settings.putAll(overrides);
        return Configuration.fromMap(settings);
    }

    private static String existingTopic() throws Exception {
        String topic = SharedStack.uniqueName("preflight");
        SharedStack.get().kafka().createTopic(topic, 1);
        return topic;
    }

    private static ArchiverConfig config(String topic, Map<String, String> overrides) {
        Map<String, String> settings = SharedStack.get().jobSettings(topic, topic);
        settings.putAll(overrides);
        return ArchiverConfig.of(settings);
    }
}
