package io.archiver.config;

import org.apache.flink.configuration.ConfigOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ArchiverConfigTest {

    private static Map<String, String> valid() {
        Map<String, String> m = new HashMap<>();
        m.put("kafka.bootstrap.servers", "broker:9092");
        m.put("kafka.topics", "orders, payments");
        m.put("sink.path", "s3://bucket/archive/");
        return m;
    }

    private static Map<String, String> validWith(String key, String value) {
        Map<String, String> m = valid();
        m.put(key, value);
        return m;
    }

    @Test
    void minimalConfigurationGetsDocumentedDefaults() {
        ArchiverConfig config = ArchiverConfig.of(valid());
        assertThat(config.topics()).containsExactly("orders", "payments");
        assertThat(config.sinkPath()).isEqualTo("s3://bucket/archive");
        assertThat(config.get(SinkOptions.SINK_FORMAT)).isEqualTo("parquet");
        assertThat(config.get(JobOptions.MODE)).isEqualTo(Mode.STREAMING);
        assertThat(config.deadLetterPath()).isEqualTo("s3://bucket/archive/_dead-letter");
    }

    @Test
    void sourceReadsCommittedRecordsUnlessToldOtherwise() {
        assertThat(ArchiverConfig.of(valid()).isolationLevel()).isEqualTo(org.apache.kafka.common.IsolationLevel.READ_COMMITTED);
        assertThat(ArchiverConfig.of(validWith("kafka.properties.isolation.level", "read_uncommitted")).isolationLevel())
                .isEqualTo(org.apache.kafka.common.IsolationLevel.READ_UNCOMMITTED);
    }

    @Test
    void unknownIsolationLevelNamesTheKeyAndBothValues() {
        assertThatThrownBy(() -> ArchiverConfig.of(validWith("kafka.properties.isolation.level", "committed")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("'kafka.properties.isolation.level'")
                .hasMessageContaining("read_committed")
                .hasMessageContaining("read_uncommitted");
    }

    @Test
    void leaseTimeoutDefaultsToThreeCheckpointsAndAtLeastOneMinute() {
        assertThat(ArchiverConfig.of(validWith("checkpoint.interval", "10 s")).leaseTimeout()).isEqualTo(java.time.Duration.ofSeconds(60));
        assertThat(ArchiverConfig.of(valid()).leaseTimeout()).as("checkpoint.interval 30 s").isEqualTo(java.time.Duration.ofSeconds(90));
        assertThat(ArchiverConfig.of(validWith("checkpoint.interval", "5 min")).leaseTimeout())
                .isEqualTo(java.time.Duration.ofMinutes(15));
    }

    @Test
    void leaseTimeoutShorterThanTwoCheckpointsNamesBothKeys() {
        Map<String, String> settings = validWith("checkpoint.interval", "1 min");
        settings.put("fencing.lease-timeout", "90 s");
        assertThatThrownBy(() -> ArchiverConfig.of(settings))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("'fencing.lease-timeout': it must be at least twice 'checkpoint.interval' (60000 ms)");
    }

    @Test
    void unknownKeyIsNamedWithTheNearestValidKey() {
        assertThatThrownBy(() -> ArchiverConfig.of(validWith("sink.fromat", "jsonl")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("Unknown configuration key 'sink.fromat'")
                .hasMessageContaining("Did you mean 'sink.format'?");
    }

    @Test
    void invalidEnumValueListsTheAcceptedValues() {
        assertThatThrownBy(() -> ArchiverConfig.of(validWith("errors.policy", "ignore")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Invalid value 'ignore' for 'errors.policy': accepted fail, skip, dead-letter.");
    }

    @Test
    void hyphenatedEnumValuesParse() {
        assertThat(ArchiverConfig.of(validWith("errors.policy", "dead-letter")).get(RecordOptions.ERRORS_POLICY))
                .isEqualTo(ErrorPolicy.DEAD_LETTER);
    }

    @Test
    void invalidDurationSaysWhatADurationLooksLike() {
        assertThatThrownBy(() -> ArchiverConfig.of(validWith("checkpoint.interval", "often")))
                .hasMessageContaining("'checkpoint.interval'")
                .hasMessageContaining("a duration (e.g. 30 s, 5 min)");
    }

    @Test
    void missingRequiredKeyIsNamedWithAnExample() {
        Map<String, String> m = valid();
        m.remove("kafka.bootstrap.servers");
        assertThatThrownBy(() -> ArchiverConfig.of(m))
                .hasMessageStartingWith("Missing required key 'kafka.bootstrap.servers'");
    }

    @Test
    void topicsAndPatternAreExclusive() {
        assertThatThrownBy(() -> ArchiverConfig.of(validWith("kafka.topic-pattern", "orders.*")))
                .hasMessageContaining("exactly one of 'kafka.topics'")
                .hasMessageContaining("both are set");
        Map<String, String> neither = valid();
        neither.remove("kafka.topics");
        assertThatThrownBy(() -> ArchiverConfig.of(neither)).hasMessageContaining("neither is set");
    }

    @Test
    void badStartPositionListsTheForms() {
        assertThatThrownBy(() -> ArchiverConfig.of(validWith("kafka.start", "beginning")))
                .hasMessage("Invalid value 'beginning' for 'kafka.start': accepted values are "
                        + "earliest | latest | committed | timestamp:<epoch-ms>.");
        assertThatThrownBy(() -> ArchiverConfig.of(validWith("kafka.start", "timestamp:yesterday")))
                .hasMessageContaining("epoch milliseconds");
    }

    @Test
    void stopPositionIsRefusedInStreamingMode() {
        assertThatThrownBy(() -> ArchiverConfig.of(validWith("kafka.stop", "latest")))
                .hasMessageContaining("'kafka.stop' applies only to mode: batch");
    }

    @Test
    void anOrphanedUploadAgeThatAFileStillBeingWrittenCouldReachIsRefusedNamingTheBound() {
        Map<String, String> m = validWith("sink.orphaned-uploads.abort-after", "10 min");
        assertThatThrownBy(() -> ArchiverConfig.of(m))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("'sink.orphaned-uploads.abort-after: 10 min' would abort uploads of files the job is still writing")
                .hasMessageContaining("longer than checkpoint.timeout plus two checkpoint.interval (11 min), or 0");
        m.put("checkpoint.timeout", "5 min");
        assertThat(ArchiverConfig.of(m).get(SinkOptions.SINK_ORPHANED_UPLOADS_ABORT_AFTER)).isEqualTo(java.time.Duration.ofMinutes(10));
        assertThat(ArchiverConfig.of(validWith("sink.orphaned-uploads.abort-after", "0 s"))).isNotNull();
        assertThat(ArchiverConfig.of(valid()).get(SinkOptions.SINK_ORPHANED_UPLOADS_ABORT_AFTER)).isEqualTo(java.time.Duration.ofHours(24));
    }

    @Test
    void badStopOffsetsShowTheSyntax() {
        Map<String, String> m = validWith("mode", "batch");
        m.put("kafka.stop", "offsets:orders=12");
        assertThatThrownBy(() -> ArchiverConfig.of(m)).hasMessageContaining("offsets:<topic>:<partition>=<offset>");
    }

    @Test
    void sinkPathMustBeAUri() {
        assertThatThrownBy(() -> ArchiverConfig.of(validWith("sink.path", "/data/archive")))
                .hasMessageContaining("'sink.path'")
                .hasMessageContaining("s3://bucket/prefix");
    }

    /** Integer options with a range: a value outside it names the key and the range, one inside it is read back. */
    @ParameterizedTest
    @CsvSource({
        "sink.jsonl.gzip-level, 11, 1, 1 (fastest) to 9 (smallest)",
        "sink.jsonl.zstd-level, 22, 1, 1 (fastest) to 19 (smallest)",
        "sink.parquet.zstd-level, 0, 19, 1 (fastest) to 19 (smallest)",
        "sink.upload-threads, 0, 16, 1 to 64",
        "sink.commit-threads, 65, 32, 1 to 64",
    })
    void integerOutsideItsRangeNamesTheKeyAndTheRange(String key, String outside, int inside, String range) {
        assertThatThrownBy(() -> ArchiverConfig.of(validWith(key, outside)))
                .hasMessageContaining("'" + key + "'")
                .hasMessageContaining(range);
        @SuppressWarnings("unchecked")
        ConfigOption<Integer> option = (ConfigOption<Integer>) ArchiverOptions.all().stream()
                .filter(o -> o.key().equals(key))
                .findFirst()
                .orElseThrow();
        assertThat(ArchiverConfig.of(validWith(key, String.valueOf(inside))).get(option)).isEqualTo(inside);
    }

    @Test
    void secretsAreRedacted() {
        Map<String, String> m = valid();
        m.put("kafka.properties.sasl.jaas.config", "org.apache...PlainLoginModule required password=\"hunter2\";");
        m.put("flink.s3.secret-key", "s3cr3t");
        m.put("flink.s3.access-key", "AKIA");
        Map<String, String> redacted = ArchiverConfig.of(m).redacted();
        assertThat(redacted.toString()).doesNotContain("hunter2", "s3cr3t", "AKIA");
        assertThat(redacted).containsEntry("kafka.bootstrap.servers", "broker:9092");
    }

    @Test
    void passThroughPrefixesReachKafkaAndFlink() {
        Map<String, String> m = valid();
        m.put("kafka.properties.security.protocol", "SASL_SSL");
        m.put("flink.s3.endpoint", "http://localhost:9000");
        ArchiverConfig config = ArchiverConfig.of(m);
        assertThat(config.kafkaProperties()).containsEntry("security.protocol", "SASL_SSL");
        assertThat(config.flinkSettings().toMap()).containsEntry("s3.endpoint", "http://localhost:9000");
    }

    @Test
    void yamlFileIsFlattenedAndOverridesWin(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("archiver.yaml");
        Files.writeString(file, String.join("\n",
                "kafka:",
                "  bootstrap.servers: broker:9092",
                "  topics: [orders, payments]",
                "sink:",
                "  path: s3://bucket/archive",
                "  format: jsonl",
                "checkpoint.interval: 10 s",
                ""));
        ArchiverConfig config = ConfigLoader.load(file, Map.of("sink.format", "parquet"));
        assertThat(config.topics()).containsExactly("orders", "payments");
        assertThat(config.get(SinkOptions.SINK_FORMAT)).isEqualTo("parquet");
        assertThat(config.get(CheckpointOptions.CHECKPOINT_INTERVAL)).hasSeconds(10);
    }

    @Test
    void missingFileIsNamed(@TempDir Path dir) {
        assertThatThrownBy(() -> ConfigLoader.load(dir.resolve("nope.yaml"), Map.of()))
                .hasMessageContaining("nope.yaml' does not exist");
    }

    @Test
    void shippedConfigurationFileIsValidAndArchivesAnyPayload() {
        ArchiverConfig config = ConfigLoader.load(Path.of("conf", "archiver.yaml"), Map.of());
        assertThat(config.sinkPath()).startsWith("s3://");
        // copied as it is onto a topic of binary keys, values or headers, it must not reject a record
        assertThat(io.archiver.record.PayloadFormats.of(config).allBytes()).isTrue();
    }

    @Test
    void thePerTopicLayoutIsParquetOnly() {
        Map<String, String> m = validWith("sink.layout", "per-topic");
        assertThat(ArchiverConfig.of(m).get(SinkOptions.SINK_LAYOUT)).isEqualTo(SinkLayout.PER_TOPIC);
        m.put("sink.format", "jsonl");
        assertThatThrownBy(() -> ArchiverConfig.of(m))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("'sink.layout: per-topic' needs 'sink.format: parquet'");
        assertThatThrownBy(() -> ArchiverConfig.of(validWith("sink.layout", "per-subtask")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("'sink.layout'").hasMessageContaining("per-partition").hasMessageContaining("per-topic");
    }

    @Test
    void s3EncryptionIsAppliedToEveryBucketTheJobWritesAndAKeyIdWithoutSseKmsIsRefused() {
        Map<String, String> m = validWith("sink.s3.encryption", "sse-kms");
        m.put("sink.s3.kms-key-id", "alias/archive");
        m.put("errors.dead-letter.path", "s3://dead-letters/archive");
        m.put("checkpoint.dir", "s3://flink/checkpoints");
        assertThat(io.archiver.fs.S3EncryptionRequirement.fileSystemSettings(ArchiverConfig.of(m))).containsExactly(
                Map.entry("s3.bucket.bucket.encryption.algorithm", "SSE-KMS"),
                Map.entry("s3.bucket.bucket.encryption.key", "alias/archive"),
                Map.entry("s3.bucket.dead-letters.encryption.algorithm", "SSE-KMS"),
                Map.entry("s3.bucket.dead-letters.encryption.key", "alias/archive"),
                Map.entry("s3.bucket.flink.encryption.algorithm", "SSE-KMS"),
                Map.entry("s3.bucket.flink.encryption.key", "alias/archive"));
        assertThat(io.archiver.fs.S3EncryptionRequirement.fileSystemSettings(ArchiverConfig.of(validWith("sink.s3.encryption", "sse-s3"))))
                .containsExactly(Map.entry("s3.bucket.bucket.encryption.algorithm", "AES256"));
        assertThat(io.archiver.fs.S3EncryptionRequirement.fileSystemSettings(ArchiverConfig.of(valid()))).isEmpty();

        assertThatThrownBy(() -> ArchiverConfig.of(validWith("sink.s3.kms-key-id", "alias/archive")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("'sink.s3.kms-key-id' applies only to 'sink.s3.encryption: sse-kms'");
        Map<String, String> local = validWith("sink.s3.encryption", "sse-s3");
        local.put("sink.path", "file:///tmp/archive");
        assertThatThrownBy(() -> ArchiverConfig.of(local))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("applies to an archive in S3");
        assertThatThrownBy(() -> ArchiverConfig.of(validWith("sink.s3.encryption", "kms")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("default, sse-s3, sse-kms");
    }
}
