package io.archiver.audit;

import io.archiver.archive.ArchiveRoot;
import io.archiver.archive.RejectedRecords;
import io.archiver.config.ArchiverConfig;
import io.archiver.config.ErrorPolicy;
import io.archiver.job.JobLauncher;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.DeadLetter;
import io.archiver.record.PayloadFormats;
import io.archiver.table.TableArchiveFiles;
import io.archiver.testutils.ArchiveAssertions;
import io.archiver.testutils.Cli;
import io.archiver.testutils.KafkaTopicReader;
import io.archiver.testutils.SharedMiniCluster;
import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TestRecords;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every committed offset is accounted for: records {@code errors.policy} rejected (dead-lettered, or skipped and recorded
 * in the skip log) are counted apart from missing ones, the audit is clean, repair leaves them alone, and once the
 * format is fixed {@code repair --rearchive-rejected} archives those valid now: the archive then equals the committed
 * log but for the records still invalid, both ways. Bad records sit first and last in their partitions and between
 * committed and aborted transactions.
 */
@SharedMiniCluster
class RejectedRecordsITCase {

    /** Not JSON, valid UTF-8: archivable as {@code string} once the format is fixed. */
    private static final byte[] NOT_JSON = "{".getBytes(StandardCharsets.UTF_8);
    private static final byte[] EMPTY = new byte[0];
    private static final byte[] TRAILING_GARBAGE = "{\"a\":1} x".getBytes(StandardCharsets.UTF_8);
    /** Not UTF-8: rejected as {@code string} too. */
    private static final byte[] NOT_UTF8 = {'{', (byte) 0xC3, '('};

    @ParameterizedTest
    @EnumSource(value = ErrorPolicy.class, names = {"DEAD_LETTER", "SKIP"})
    void rejectedRecordsAreAccountedForAndReArchivedOnPurposeOnceTheFormatIsFixed(ErrorPolicy policy) throws Exception {
        SharedStack stack = SharedStack.get();
        String topic = SharedStack.uniqueName("rejected-" + policy.configName());
        stack.kafka().createTopic(topic, 2);
        String bootstrap = stack.kafka().bootstrapServers();
        produce(topic, 0, NOT_JSON);
        TestRecords.produceTransactions(bootstrap, topic, 2, 0, 600, 100, 3);
        produce(topic, 0, NOT_UTF8);
        produce(topic, 1, EMPTY);
        TestRecords.produceTransactions(bootstrap, topic, 2, 600, 300, 100, 2);
        produce(topic, 1, TRAILING_GARBAGE);
        List<ArchiveRecord> truth = KafkaTopicReader.readAll(bootstrap, topic);
        Set<String> bad = truth.stream().filter(r -> r.getValue() != null && !isJson(r.getValue())).map(ArchiveRecord::toString)
                .collect(Collectors.toSet());
        assertThat(bad).hasSize(4);

        Map<String, String> settings = stack.jobSettings(topic, topic);
        settings.put("mode", "batch");
        settings.put("record.value.format", "json");
        settings.put("errors.policy", policy.configName());
        ArchiverConfig config = ArchiverConfig.of(settings);
        JobLauncher.environment(config).executeAsync("rejected").getJobExecutionResult().get(2, TimeUnit.MINUTES);

        String kind = policy == ErrorPolicy.SKIP ? "Skipped" : "Dead-lettered";
        for (String mode : new String[] {"--deep", "--orphan-age=PT1H"}) {
            Cli.Result audit = Cli.run(config, "audit", mode);
            assertThat(audit.code()).as(audit.out()).isZero();
            assertThat(audit.out()).contains("Verdict: CLEAN")
                    .contains(policy == ErrorPolicy.SKIP ? "(0 dead-lettered, 4 skipped)" : "(4 dead-lettered, 0 skipped)")
                    .contains(kind + ", " + topic + "-0: 2 records").contains(kind + ", " + topic + "-1: 2 records")
                    .contains("value is not valid JSON").contains("--rearchive-rejected");
        }
        AuditReport report = new ArchiveAuditor(stack.verifier(PayloadFormats.of(config)), new KafkaInspector(client()), Duration.ofHours(1))
                .audit(TableArchiveFiles.of(config), config.deadLetterPath(), config.topics(), "g", true, line -> {});
        assertThat(report.getMissing()).isZero();
        assertThat(report.getPartitions()).allSatisfy(p -> assertThat(p.getLag()).as("lag of %s", p.getPartition()).isZero());
        assertThat(policy == ErrorPolicy.SKIP ? report.getSkipped() : report.getDeadLettered()).isEqualTo(4);
        if (policy == ErrorPolicy.SKIP) {
            List<ArchiveRecord> log = ArchiveAssertions.archived(ArchiveRoot.of(config).skipLog().toString(), PayloadFormats.BYTES);
            assertThat(log).extracting(ArchiveRecord::toString).containsExactlyInAnyOrderElementsOf(bad);
            assertThat(log).allSatisfy(entry -> {
                assertThat(entry.getKey()).as("no key in the skip log").isNull();
                assertThat(entry.getValue()).as("no value in the skip log").isNull();
                assertThat(entry.getHeaderKeys()).as("no headers in the skip log").isEmpty();
                assertThat(((DeadLetter) entry).getReason()).startsWith("value is ").contains("(format json)");
            });
        }

        Cli.Result plan = Cli.run(config, "repair");
        assertThat(plan.code()).as(plan.out()).isZero();
        assertThat(plan.out()).contains("Nothing to repair").contains("--rearchive-rejected archives those valid in the formats now");

        // the fix: values are text, not JSON; the record that is not UTF-8 stays rejected
        ArchiverConfig fixed = config.with(Map.of("record.value.format", "string"));
        Cli.Result rearchive = Cli.run(fixed, "repair", "--rearchive-rejected", "--apply");
        assertThat(rearchive.code()).as(rearchive.out()).isZero();
        // the partition's last record lies at its position record's next offset: a start without state would read it again
        assertThat(rearchive.out()).contains("Still rejected: " + topic + "-0@").contains("records archived from Kafka: 2,")
                .containsPattern("Left alone: " + topic + "-1: rejected records at or after offset \\d+, the partition's position")
                .contains("Audit after the repair: CLEAN");
        Cli.Result after = Cli.run(fixed, "audit", "--deep");
        assertThat(after.code()).as(after.out()).isZero();
        assertThat(after.out()).contains(kind + ", " + topic + "-0: 1 records").contains(kind + ", " + topic + "-1: 1 records")
                .contains("Re-archived, " + topic + "-0: 1 records").contains("Re-archived, " + topic + "-1: 1 records");
        List<ArchiveRecord> expected = new ArrayList<>(truth);
        expected.removeIf(r -> r.getValue() != null && (Arrays.equals(r.getValue(), NOT_UTF8) || Arrays.equals(r.getValue(), TRAILING_GARBAGE)));
        ArchiveAssertions.assertExactlyOnce(config.sinkPath(), PayloadFormats.of(fixed), expected);
    }

    private static boolean isJson(byte[] value) {
        return !Arrays.equals(value, NOT_JSON) && !Arrays.equals(value, EMPTY)
                && !Arrays.equals(value, TRAILING_GARBAGE) && !Arrays.equals(value, NOT_UTF8);
    }

    private static void produce(String topic, int partition, byte[] value) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = TestRecords.producer(SharedStack.get().kafka().bootstrapServers())) {
            producer.send(new ProducerRecord<>(topic, partition, null, value)).get();
        }
    }

    private static Properties client() {
        Properties p = new Properties();
        p.setProperty("bootstrap.servers", SharedStack.get().kafka().bootstrapServers());
        return p;
    }
}
