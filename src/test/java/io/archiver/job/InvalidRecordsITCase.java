package io.archiver.job;

import io.archiver.config.ArchiverConfig;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.DeadLetter;
import io.archiver.record.PayloadFormats;
import io.archiver.testutils.ArchiveAssertions;
import io.archiver.testutils.CapturedLogs;
import io.archiver.testutils.SharedMiniCluster;
import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TestRecords;

import org.apache.flink.core.execution.JobClient;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Records that are not valid in the configured value format go where errors.policy says, never lost silently,
 * and no policy puts their payload in a log line or an exception message.
 */
@SharedMiniCluster
class InvalidRecordsITCase {

    /** A value that is not JSON and looks like a credential: it may be archived, never logged. */
    private static final String SECRET = "hunter2-s3cr3t";
    private static final String INVALID = "password=" + SECRET + " {";

    @Test
    void deadLetterPolicyWritesInvalidRecordsAsideAndArchivesTheRest() throws Exception {
        ArchiverConfig config = config("dead-letter");
        try (CapturedLogs logs = CapturedLogs.start()) {
            runToCompletion(config);
            assertThat(logs.containing("@1")).isNotEmpty();
            assertThat(logs.containing(SECRET)).isEmpty();
        }

        List<ArchiveRecord> archived = ArchiveAssertions.archived(config.sinkPath(), PayloadFormats.of(config));
        List<ArchiveRecord> dead = ArchiveAssertions.archived(config.deadLetterPath(), PayloadFormats.BYTES);
        assertThat(archived).extracting(ArchiveRecord::getOffset).containsExactlyInAnyOrder(0L, 2L);
        assertThat(dead).extracting(ArchiveRecord::getOffset).containsExactly(1L);
        assertThat(new String(dead.get(0).getValue(), StandardCharsets.UTF_8)).isEqualTo(INVALID);
        assertThat(((DeadLetter) dead.get(0)).getReason())
                .isEqualTo("value is not valid JSON (format json): unrecognized token, near byte offset 9").doesNotContain(SECRET);
    }

    @Test
    void skipPolicyArchivesOnlyValidRecords() throws Exception {
        ArchiverConfig config = config("skip");
        try (CapturedLogs logs = CapturedLogs.start()) {
            runToCompletion(config);
            assertThat(logs.containing("@1")).isNotEmpty();
            assertThat(logs.containing(SECRET)).isEmpty();
        }

        assertThat(ArchiveAssertions.archived(config.sinkPath(), PayloadFormats.of(config)))
                .extracting(ArchiveRecord::getOffset)
                .containsExactlyInAnyOrder(0L, 2L);
    }

    @Test
    void failPolicyFailsTheJobNamingTheRecordButNotItsPayload() throws Exception {
        ArchiverConfig config = config("fail");
        try (CapturedLogs logs = CapturedLogs.start()) {
            assertThatThrownBy(() -> runToCompletion(config))
                    .isInstanceOf(ExecutionException.class)
                    .hasStackTraceContaining("@1 cannot be archived: value is not valid JSON (format json): unrecognized token, near byte offset ")
                    .satisfies(e -> assertThat(stackTrace(e)).doesNotContain(SECRET));
            assertThat(logs.containing("@1 cannot be archived")).isNotEmpty();
            assertThat(logs.containing(SECRET)).isEmpty();
        }
    }

    private static String stackTrace(Throwable e) {
        java.io.StringWriter trace = new java.io.StringWriter();
        e.printStackTrace(new java.io.PrintWriter(trace));
        return trace.toString();
    }

    private static ArchiverConfig config(String policy) throws Exception {
        SharedStack stack = SharedStack.get();
        String topic = SharedStack.uniqueName("invalid-" + policy);
        stack.kafka().createTopic(topic, 1);
        try (KafkaProducer<byte[], byte[]> producer = TestRecords.producer(stack.kafka().bootstrapServers())) {
            for (String value : new String[] {"{\"ok\":1}", INVALID, "[2]"}) {
                producer.send(new ProducerRecord<>(topic, 0, null, value.getBytes(StandardCharsets.UTF_8))).get();
            }
        }
        Map<String, String> settings = stack.jobSettings(topic, topic);
        settings.put("mode", "batch");
        settings.put("record.value.format", "json");
        settings.put("errors.policy", policy);
        settings.put("restart.strategy", "none");
        return ArchiverConfig.of(settings);
    }

    private static void runToCompletion(ArchiverConfig config) throws Exception {
        JobClient job = JobLauncher.environment(config).executeAsync("invalid records");
        job.getJobExecutionResult().get(120, TimeUnit.SECONDS);
    }
}
