package io.archiver.source;

import io.archiver.config.ArchiverConfig;
import io.archiver.config.SinkLayout;
import io.archiver.job.JobLauncher;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;
import io.archiver.testutils.ArchiveAssertions;
import io.archiver.testutils.Jobs;
import io.archiver.testutils.ArchiveCounter;
import io.archiver.testutils.Await;
import io.archiver.testutils.KafkaTopicReader;
import io.archiver.testutils.SharedMiniCluster;
import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TestRecords;

import org.apache.flink.core.execution.JobClient;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.archiver.testutils.ArchiveAssertions.assertExactlyOnce;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Topics written by transactional producers: the archive holds what a read_committed consumer reads
 * (committed records only, each once), an open transaction holds back only its own partitions, and a bounded
 * run stops at the last stable offset instead of waiting inside an open transaction.
 */
@SharedMiniCluster
class TransactionalTopicITCase {

    private static final Duration CATCH_UP = Duration.ofMinutes(2);

    private final SharedStack stack = SharedStack.get();
    private final String bootstrap = stack.kafka().bootstrapServers();

    @ParameterizedTest
    @EnumSource(SinkLayout.class)
    void defaultJobArchivesOnlyTheCommittedRecordsOfATransactionalTopic(SinkLayout layout) throws Exception {
        String topic = SharedStack.uniqueName("transactional");
        stack.kafka().createTopic(topic, 4);
        TestRecords.produce(bootstrap, topic, 4, 0, 1_000);
        TestRecords.produceTransactions(bootstrap, topic, 4, 1_000, 3_000, 100, 3);
        TestRecords.produce(bootstrap, topic, 4, 4_000, 1_000);
        List<ArchiveRecord> truth = KafkaTopicReader.readAll(bootstrap, topic);
        assertThat(truth).as("committed records").hasSize(2_000 + 2_000);
        ArchiverConfig config = config(topic, layout);

        JobClient job = JobLauncher.environment(config).executeAsync("transactional");
        try {
            awaitArchived(config, truth.size());
            TestRecords.produceTransactions(bootstrap, topic, 4, 5_000, 1_000, 50, 2);
            truth = KafkaTopicReader.readAll(bootstrap, topic);
            awaitArchived(config, truth.size());
        } finally {
            Jobs.cancel(job);
        }

        assertExactlyOnce(config.sinkPath(), PayloadFormats.of(config), truth);
    }

    @ParameterizedTest
    @EnumSource(SinkLayout.class)
    void openTransactionHoldsBackOnlyItsPartitionAndIsArchivedOnceCommitted(SinkLayout layout) throws Exception {
        String topic = SharedStack.uniqueName("open-transaction");
        stack.kafka().createTopic(topic, 2);
        ArchiverConfig config = config(topic, layout);
        PayloadFormats formats = PayloadFormats.of(config);
        JobClient job = JobLauncher.environment(config).executeAsync("open-transaction");
        try (KafkaProducer<byte[], byte[]> tx = TestRecords.transactionalProducer(bootstrap, "open-" + topic)) {
            tx.beginTransaction();
            sendToPartition(tx, topic, 0, 0, 200);
            tx.flush();
            // plain records after the open transaction: partition 1 flows, partition 0 is held back
            TestRecords.produce(bootstrap, topic, 2, 1_000, 400);
            awaitPartitionArchived(config, 1, 200);
            TestRecords.produce(bootstrap, topic, 2, 2_000, 400);
            awaitPartitionArchived(config, 1, 400);
            assertThat(inPartition(ArchiveAssertions.archived(config.sinkPath(), formats), 0))
                    .as("records of partition 0 archived while its transaction is open").isEmpty();

            tx.commitTransaction();
            awaitPartitionArchived(config, 0, 200 + 400);

            tx.beginTransaction();
            sendToPartition(tx, topic, 0, 3_000, 100);
            tx.flush();
            TestRecords.produce(bootstrap, topic, 2, 4_000, 200);
            awaitPartitionArchived(config, 1, 400 + 100);
            assertThat(inPartition(ArchiveAssertions.archived(config.sinkPath(), formats), 0))
                    .as("partition 0 held back again by the second open transaction").hasSize(600);
            tx.abortTransaction();
            // the abort returns once the coordinator decided it; its markers reach the partitions after
            List<ArchiveRecord> truth = KafkaTopicReader.readCommitted(bootstrap, topic, 200 + 800 + 200);
            assertThat(truth).hasSize(200 + 800 + 200);
            awaitArchived(config, truth.size());
            job.cancel().get(1, TimeUnit.MINUTES);
            assertExactlyOnce(config.sinkPath(), formats, truth);
        } finally {
            if (!job.getJobStatus().get().isGloballyTerminalState()) {
                job.cancel().get(1, TimeUnit.MINUTES);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(SinkLayout.class)
    void batchRunStopsAtTheLastStableOffsetWhileATransactionIsOpen(SinkLayout layout) throws Exception {
        String topic = SharedStack.uniqueName("backfill-open-transaction");
        stack.kafka().createTopic(topic, 2);
        TestRecords.produceTransactions(bootstrap, topic, 2, 0, 1_000, 100, 4);
        try (KafkaProducer<byte[], byte[]> tx = TestRecords.transactionalProducer(bootstrap, "open-" + topic)) {
            tx.beginTransaction();
            sendToPartition(tx, topic, 0, 1_000, 50);
            tx.flush();
            TestRecords.produce(bootstrap, topic, 2, 2_000, 200);
            List<ArchiveRecord> belowLastStable = KafkaTopicReader.readAll(bootstrap, topic);
            ArchiverConfig config = config(topic, layout).with(Map.of("mode", "batch"));

            JobLauncher.environment(config).executeAsync("backfill").getJobExecutionResult().get(2, TimeUnit.MINUTES);

            assertExactlyOnce(config.sinkPath(), PayloadFormats.of(config), belowLastStable);
            tx.abortTransaction();
        }
    }

    private ArchiverConfig config(String topic, SinkLayout layout) {
        return ArchiverConfig.of(stack.jobSettings(topic, topic)).with(Map.of("sink.layout", layout.configName()));
    }

    private static void sendToPartition(KafkaProducer<byte[], byte[]> producer, String topic, int partition, int first, int count) {
        for (int i = first; i < first + count; i++) {
            ArchiveRecord r = TestRecords.record(topic, partition, i, TestRecords.Timestamps.IN_ORDER);
            producer.send(TestRecords.toProducerRecord(r));
        }
    }

    private static List<ArchiveRecord> inPartition(List<ArchiveRecord> records, int partition) {
        List<ArchiveRecord> out = new ArrayList<>();
        records.stream().filter(r -> r.getPartition() == partition).forEach(out::add);
        return out;
    }

    private static void awaitArchived(ArchiverConfig config, long records) throws Exception {
        ArchiveCounter counter = new ArchiveCounter(config.sinkPath(), PayloadFormats.of(config));
        Await.until(records + " records archived", CATCH_UP, () -> counter.count() >= records, () -> "archived " + counter.count());
    }

    private static void awaitPartitionArchived(ArchiverConfig config, int partition, long records) throws Exception {
        PayloadFormats formats = PayloadFormats.of(config);
        Await.until(records + " records of partition " + partition + " archived", CATCH_UP,
                () -> inPartition(ArchiveAssertions.archived(config.sinkPath(), formats), partition).size() >= records);
    }
}
