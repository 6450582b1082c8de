package io.archiver.restore;

import io.archiver.table.TableArchiveFiles;
import io.archiver.restore.plan.RestoreSelection;
import io.archiver.restore.plan.RestorePlan;
import io.archiver.restore.plan.UnitRecords;
import io.archiver.restore.ledger.RestoreHistory;
import io.archiver.restore.ledger.RestoreProgress;
import io.archiver.archive.ArchiveFiles;
import io.archiver.config.ArchiverConfig;
import io.archiver.archive.ArchiveFileReader;
import io.archiver.local.EmbeddedKafka;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;
import io.archiver.testutils.Await;
import io.archiver.testutils.Cli;
import io.archiver.testutils.KafkaTopicReader;
import io.archiver.testutils.LongRunning;
import io.archiver.testutils.SharedMiniCluster;
import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TestRecords;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static io.archiver.testutils.TestRecords.byPartition;
import static io.archiver.restore.RestoreITCase.committed;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A restore started again writes each selected record exactly once whatever the target did meanwhile through its
 * own settings (compaction, retention) and whatever selection the earlier runs had: what was written is known from
 * the restore ledger, written in the same Kafka transactions as the records, never from what the target still
 * holds. {@code --verify} checks what compaction and retention promise. Each transaction stays within the brokers'
 * {@code transaction.max.timeout.ms}. The truth is the read_committed read-back of the target.
 */
@SharedMiniCluster
@LongRunning(seconds = 47)
class RestoreAgainITCase {

    @Test
    void aRestoreCancelledAfterSeveralCommitsIntoACompactedTargetAndStartedAgainAfterTheCleanerRanWritesEachRecordOnce() throws Exception {
        String bootstrap = SharedStack.get().kafka().bootstrapServers();
        String source = SharedStack.uniqueName("profiles");
        SharedStack.get().kafka().createTopic(source, 2);
        try (KafkaProducer<byte[], byte[]> producer = TestRecords.producer(bootstrap)) {
            for (int i = 0; i < 20_000; i++) {
                ArchiveRecord r = TestRecords.record(source, i % 2, i, TestRecords.Timestamps.IN_ORDER);
                r.setKey(("key-" + i % 200).getBytes(StandardCharsets.UTF_8));
                if (r.getValue() != null) {
                    r.setValue(Arrays.copyOf(r.getValue(), 1_024));
                }
                producer.send(TestRecords.toProducerRecord(r));
            }
        }
        RestoreITCase.Archived archived = RestoreITCase.archiveTopic(source, List.of(), Map.of("sink.roll.max-part-size", "256 kb"));
        Map<Integer, List<String>> truth = archivedRecords(archived.config(), source);
        int total = truth.values().stream().mapToInt(List::size).sum();
        String target = source + "-restored";
        createCompacted(target, 2);
        String rename = source + "=" + target;

        // a first start, cancelled once several of its checkpoints have committed (small batches, one request in
        // flight, a small producer buffer that makes sends wait for the broker: a restore slow enough to be cut mid-way)
        Map<String, String> often = new HashMap<>(archived.config().toMap());
        often.put("restore.checkpoint-interval", "100 ms");
        often.put("parallelism", "1");
        often.put("kafka.properties.batch.size", "16384");
        often.put("kafka.properties.max.in.flight.requests.per.connection", "1");
        often.put("kafka.properties.buffer.memory", "65536");
        ArchiverConfig config = ArchiverConfig.of(often);
        RestoreSelection selection = RestoreSelection.parse(source, rename, null);
        RestorePlan plan = RestorePlan.of(TableArchiveFiles.of(config), selection, new ArchiveFileReader(PayloadFormats.of(config)));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(RestoreJob.settings(config));
        RestoreJob.build(env, config, plan, selection, false, new PrintWriter(System.out));
        JobClient job = env.executeAsync("restore into a compacted topic");
        Await.until("the restore's first commit", Duration.ofMinutes(2), () -> !KafkaTopicReader.readAll(bootstrap, target).isEmpty());
        long first = completedCheckpoints(job);
        Await.until("three more checkpoints of the restore", Duration.ofMinutes(1), () -> completedCheckpoints(job) >= first + 3,
                () -> "job " + job.getJobStatus().get() + ", " + completedCheckpoints(job) + " checkpoints completed ("
                        + first + " at the first commit), " + KafkaTopicReader.readAll(bootstrap, target).size() + " of " + total
                        + " records committed");
        cancel(job);
        // the cancelled start left its last transaction open, and the cleaner stops below an open transaction:
        // it ends as it would when transaction.timeout.ms passed
        abortOpenTransactions(target);
        long written;
        try (Admin admin = SharedStack.get().kafka().admin()) {
            written = RestoreProgress.forReading(config, admin, plan, selection).histories().values().stream()
                    .mapToLong(RestoreHistory::writtenRecords).sum();
        }
        System.out.printf("restore cancelled with %d of %d records committed%n", written, total);
        assertThat(written).as("cancelled mid-way").isPositive().isLessThan(total);
        awaitCleaned(target, written);

        Cli.Result again = Cli.run(config, "restore", "--topics", source, "--rename", rename);
        assertThat(again.code()).as(again.out()).isZero();
        assertThat(again.out()).contains("records already restored into " + target);
        Map<Integer, List<String>> afterSecond = byPartition(KafkaTopicReader.readSettled(bootstrap, target));
        assertCompactedOnce(truth, afterSecond);

        // the cleaner goes on removing records meanwhile; a write would move the end offsets
        long endBeforeThird = RestoreITCase.endOffsets(target, "read_uncommitted", 2);
        Cli.Result third = Cli.run(config, "restore", "--topics", source, "--rename", rename);
        assertThat(third.code()).as(third.out()).isZero();
        assertThat(RestoreITCase.endOffsets(target, "read_uncommitted", 2)).as("a third start writes nothing").isEqualTo(endBeforeThird);
        assertCompactedOnce(truth, byPartition(KafkaTopicReader.readSettled(bootstrap, target)));

        Cli.Result verified = Cli.run(config, "restore", "--topics", source, "--rename", rename, "--verify");
        assertThat(verified.code()).as(verified.out()).isZero();
        assertThat(verified.out()).contains("compaction: ").contains("Restore verified");
    }

    @Test
    void aLedgerTopicDeletedSinceARestoreIsRefusedInsteadOfWritingEverythingAgain() throws Exception {
        RestoreITCase.Archived archived = RestoreITCase.archive("restore-ledger-gone", 90);
        String target = archived.topic() + "-copy";
        SharedStack.get().kafka().createTopic(target, 3);
        String ledger = SharedStack.uniqueName("ledger");
        Map<String, String> settings = new HashMap<>(archived.config().toMap());
        settings.put("restore.ledger-topic", ledger);
        ArchiverConfig config = ArchiverConfig.of(settings);
        assertThat(Cli.run(config, "restore", "--rename", archived.topic() + "=" + target).code()).isZero();
        try (Admin admin = SharedStack.get().kafka().admin()) {
            admin.deleteTopics(List.of(ledger)).all().get(30, TimeUnit.SECONDS);
            // the deletion is accepted before the broker stops serving the topic: a restore started at once read it
            Await.until("the ledger topic gone from the broker's metadata", Duration.ofSeconds(30),
                    () -> !admin.listTopics().names().get(10, TimeUnit.SECONDS).contains(ledger));
        }

        Cli.Result again = Cli.run(config, "restore", "--rename", archived.topic() + "=" + target);

        assertThat(again.code()).as(again.out()).isEqualTo(2);
        assertThat(again.out()).contains("The restore ledger topic '" + ledger + "' is gone since restores of this archive recorded in it");
        assertThat(committed(target, 90)).hasSize(90);
    }

    @Test
    void aRestoreRunAgainAfterRetentionDeletedTheTargetsFirstRecordsWritesNothingAndVerifiesWhatRetentionLeft() throws Exception {
        RestoreITCase.Archived archived = RestoreITCase.archive("restore-retention", 900);
        String target = archived.topic() + "-kept";
        SharedStack.get().kafka().createTopic(target, 3);
        String rename = archived.topic() + "=" + target;
        assertThat(Cli.run(archived.config(), "restore", "--rename", rename).code()).isZero();
        assertThat(committed(target, 900)).hasSize(900);

        Map<TopicPartition, RecordsToDelete> segments = new HashMap<>();
        for (int p = 0; p < 3; p++) {
            segments.put(new TopicPartition(target, p), RecordsToDelete.beforeOffset(100));
        }
        try (Admin admin = SharedStack.get().kafka().admin()) {
            admin.deleteRecords(segments).all().get(30, TimeUnit.SECONDS);
        }
        List<ArchiveRecord> left = KafkaTopicReader.readAll(SharedStack.get().kafka().bootstrapServers(), target);
        assertThat(left).hasSizeLessThan(900);

        Cli.Result again = Cli.run(archived.config(), "restore", "--rename", rename);
        assertThat(again.code()).as(again.out()).isZero();
        assertThat(again.out()).contains(archived.topic() + "-0: 300 records already restored");
        assertThat(byPartition(KafkaTopicReader.readAll(SharedStack.get().kafka().bootstrapServers(), target)))
                .as("nothing written again").isEqualTo(byPartition(left));
        Cli.Result verified = Cli.run(archived.config(), "restore", "--rename", rename, "--verify");
        assertThat(verified.code()).as(verified.out()).isZero();
        assertThat(verified.out()).contains("retention (log start 100)");
    }

    @Test
    void aLaterUntilOnTimestampsOutOfOffsetOrderWritesEachNewlySelectedRecordOnceAfterTheFirstRunsRecords() throws Exception {
        SharedStack stack = SharedStack.get();
        String topic = SharedStack.uniqueName("restore-late-clocks");
        stack.kafka().createTopic(topic, 3);
        List<ArchiveRecord> records = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = TestRecords.producer(stack.kafka().bootstrapServers())) {
            for (int i = 0; i < 1_800; i++) {
                ArchiveRecord r = TestRecords.record(topic, i % 3, i, TestRecords.Timestamps.OUT_OF_ORDER);
                producer.send(TestRecords.toProducerRecord(r));
                records.add(r);
            }
        }
        RestoreITCase.Archived archived = RestoreITCase.archiveTopic(topic, records, Map.of());
        String target = topic + "-t";
        String rename = topic + "=" + target;
        long[] stamps = records.stream().mapToLong(ArchiveRecord::getTimestamp).sorted().toArray();
        Instant until = Instant.ofEpochMilli(stamps[stamps.length / 2]);

        Cli.Result first = Cli.run(archived.config(), "restore", "--rename", rename, "--create-topics", "--until", until.toString());
        assertThat(first.code()).as(first.out()).isZero();
        Cli.Result later = Cli.run(archived.config(), "restore", "--rename", rename, "--until", Instant.ofEpochMilli(stamps[stamps.length - 1])
                .plus(Duration.ofDays(1)).toString());
        assertThat(later.code()).as(later.out()).isZero();
        assertThat(later.out()).contains("earlier runs selected --until " + until);

        Map<Integer, List<String>> expected = new TreeMap<>();
        Map<Integer, List<String>> firstRun = byPartition(records.stream().filter(r -> r.getTimestamp() <= until.toEpochMilli()).toList());
        Map<Integer, List<String>> secondRun = byPartition(records.stream().filter(r -> r.getTimestamp() > until.toEpochMilli()).toList());
        for (int p = 0; p < 3; p++) {
            List<String> inOrder = new ArrayList<>(firstRun.getOrDefault(p, List.of()));
            inOrder.addAll(secondRun.getOrDefault(p, List.of()));
            expected.put(p, inOrder);
        }
        assertThat(byPartition(committed(target, records.size()))).as("each record once: the first run's, then those newly selected")
                .isEqualTo(expected);
        Cli.Result verified = Cli.run(archived.config(), "restore", "--rename", rename, "--verify");
        assertThat(verified.code()).as(verified.out()).isZero();
        assertThat(verified.out()).contains("(" + records.size() + " records)");
    }

    /**
     * A later {@code --until} on timestamps out of offset order writes a key's older records after newer ones the first run
     * wrote: on a compacted target that leaves the older value as the key's latest, so the run is refused, naming how many
     * keys and the flag; with the flag it writes them, and each such key's last record in the target is not its newest.
     */
    @Test
    void aChangedSelectionThatWouldLeaveAnOlderValueAsAKeysLatestOnACompactedTargetIsRefusedUnlessAllowed() throws Exception {
        SharedStack stack = SharedStack.get();
        String topic = SharedStack.uniqueName("restore-stale-latest");
        stack.kafka().createTopic(topic, 2);
        List<ArchiveRecord> records = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = TestRecords.producer(stack.kafka().bootstrapServers())) {
            for (int i = 0; i < 600; i++) {
                ArchiveRecord r = TestRecords.record(topic, i % 2, i, TestRecords.Timestamps.OUT_OF_ORDER);
                r.setKey(("key-" + i % 40).getBytes(java.nio.charset.StandardCharsets.UTF_8));
                r.setOffset(producer.send(TestRecords.toProducerRecord(r)).get().offset());
                records.add(r);
            }
        }
        RestoreITCase.Archived archived = RestoreITCase.archiveTopic(topic, records, Map.of());
        String target = topic + "-t";
        String rename = topic + "=" + target;
        createCompacted(target, 2);
        long[] stamps = records.stream().mapToLong(ArchiveRecord::getTimestamp).sorted().toArray();
        Instant until = Instant.ofEpochMilli(stamps[stamps.length / 2]);
        String later = Instant.ofEpochMilli(stamps[stamps.length - 1]).plus(Duration.ofDays(1)).toString();
        Map<Integer, Long> staleKeys = new TreeMap<>();
        for (int p = 0; p < 2; p++) {
            int partition = p;
            Map<String, long[]> newest = new java.util.HashMap<>();
            records.stream().filter(r -> r.getPartition() == partition).forEach(r -> {
                long[] o = newest.computeIfAbsent(Arrays.toString(r.getKey()), k -> new long[] {-1, -1});
                int slot = r.getTimestamp() <= until.toEpochMilli() ? 0 : 1;
                o[slot] = Math.max(o[slot], r.getOffset());
            });
            staleKeys.put(p, newest.values().stream().filter(o -> o[1] >= 0 && o[0] > o[1]).count());
        }
        assertThat(staleKeys.values()).as("keys whose newest record the first run writes").allMatch(n -> n > 0);

        Cli.Result first = Cli.run(archived.config(), "restore", "--rename", rename, "--until", until.toString());
        assertThat(first.code()).as(first.out()).isZero();
        Map<Integer, Long> lastOffsets = lastOffsets(target);
        Cli.Result refused = Cli.run(archived.config(), "restore", "--rename", rename, "--until", later);
        assertThat(refused.code()).as(refused.out()).isEqualTo(2);
        assertThat(refused.out()).contains("Refusing to restore: this run writes records of " + staleKeys.get(0) + " keys of " + topic
                + "-0, " + staleKeys.get(1) + " keys of " + topic + "-1 after newer records").contains("--allow-stale-latest");
        assertThat(lastOffsets(target)).as("nothing written (the cleaner may compact meanwhile)").isEqualTo(lastOffsets);

        Cli.Result allowed = Cli.run(archived.config(), "restore", "--rename", rename, "--until", later, "--allow-stale-latest");
        assertThat(allowed.code()).as(allowed.out()).isZero();
        assertThat(allowed.out()).contains("Writing anyway (--allow-stale-latest)");
        for (int p = 0; p < 2; p++) {
            int partition = p;
            Map<String, ArchiveRecord> lastInTarget = new java.util.HashMap<>();
            committed(target, 1).stream().filter(r -> r.getPartition() == partition)
                    .forEach(r -> lastInTarget.put(Arrays.toString(r.getKey()), r));
            Map<String, ArchiveRecord> newestArchived = new java.util.HashMap<>();
            records.stream().filter(r -> r.getPartition() == partition).forEach(r -> newestArchived.put(Arrays.toString(r.getKey()), r));
            long stale = newestArchived.entrySet().stream().filter(e -> lastInTarget.get(e.getKey()).getTimestamp() != e.getValue().getTimestamp()
                    || !Arrays.equals(lastInTarget.get(e.getKey()).getValue(), e.getValue().getValue())).count();
            assertThat(stale).as("keys of partition %d whose latest in the target is not their newest", p).isEqualTo(staleKeys.get(p));
        }
    }

    /** Per partition, the offset of the last record a committed reader reads (compaction keeps it). */
    /** The last offset of each partition of {@code topic} (of 2) a read_committed reader sees, once every transaction's marker is written. */
    private static Map<Integer, Long> lastOffsets(String topic) throws Exception {
        // a commit returns before its markers reach every partition: until then a read_committed reader stops short
        Await.until("the markers of " + topic + "'s transactions written", Duration.ofSeconds(30),
                () -> RestoreITCase.endOffsets(topic, "read_committed", 2) == RestoreITCase.endOffsets(topic, "read_uncommitted", 2));
        Map<Integer, Long> last = new TreeMap<>();
        KafkaTopicReader.readAll(SharedStack.get().kafka().bootstrapServers(), topic).forEach(r -> last.merge(r.getPartition(), r.getOffset(), Math::max));
        return last;
    }

    @Test
    void aRestoreLongerThanTheBrokersTransactionMaximumKeepsEachTransactionWithinIt() throws Exception {
        // Sized so that the restore outlasts the brokers' transaction maximum (1 s) even on an idle machine (1.45 s
        // there, 40,000 records took 1.15 s; 2 to 3 s under the test run's load): a restore in one transaction would be aborted.
        RestoreITCase.Archived archived = RestoreITCase.archive("restore-short-transactions", 50_000, 2_048);
        try (EmbeddedKafka small = EmbeddedKafka.start(null, Map.of("transaction.max.timeout.ms", "1000",
                "transaction.abort.timed.out.transaction.cleanup.interval.ms", "500"))) {
            small.createTopic(archived.topic(), 3);
            Map<String, String> settings = new HashMap<>(archived.config().toMap());
            settings.put("kafka.bootstrap.servers", small.bootstrapServers());
            settings.put("restart.strategy", "none");
            settings.put("fencing.lease-timeout", "1 min");
            settings.put("restore.checkpoint-interval", "1 s");
            Cli.Result refused = Cli.run(ArchiverConfig.of(settings), "restore");
            assertThat(refused.code()).as(refused.out()).isEqualTo(2);
            assertThat(refused.out()).contains("restore.checkpoint-interval (1000 ms) is too long").contains("transaction.max.timeout.ms (1000 ms)")
                    .contains("at most 500 ms, e.g. -D restore.checkpoint-interval=250ms");

            settings.put("restore.checkpoint-interval", "100 ms"); // many checkpoints within the writing, however fast it goes
            long began = System.nanoTime();
            Cli.Result restored = Cli.run(ArchiverConfig.of(settings), "restore");
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began);
            assertThat(restored.code()).as(restored.out()).isZero();
            System.out.printf("restore of %d records took %d ms against a transaction maximum of 1000 ms%n", archived.records().size(), tookMs);
            assertThat(tookMs).as("the restore outlasts one transaction's maximum").isGreaterThan(1_000);
            assertThat(byPartition(KafkaTopicReader.readCommitted(small.bootstrapServers(), archived.topic(), archived.records().size())))
                    .isEqualTo(byPartition(archived.records()));
            assertThat(commitMarkers(small.bootstrapServers(), archived.topic(), archived.records().size()))
                    .as("commit markers in the target: more than one transaction per partition").isGreaterThan(3);
        }
    }

    /** Offsets in {@code topic} that hold no record: one transaction marker each when nothing was aborted. */
    private static long commitMarkers(String bootstrap, String topic, int records) {
        Properties client = new Properties();
        client.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(client, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            return consumer.endOffsets(partitions, Duration.ofSeconds(30)).values().stream().mapToLong(Long::longValue).sum() - records;
        }
    }

    /** Per partition, the archived records in offset order as {@link RestoreITCase#byPartition} shows them. */
    private static Map<Integer, List<String>> archivedRecords(ArchiverConfig config, String topic) throws Exception {
        ArchiveFileReader reader = new ArchiveFileReader(PayloadFormats.of(config));
        RestoreSelection all = RestoreSelection.parse(topic, null, null);
        List<ArchiveRecord> records = new ArrayList<>();
        for (Map.Entry<TopicPartition, List<RestorePlan.PlannedFile>> e : RestorePlan.of(TableArchiveFiles.of(config), all, reader).partitions().entrySet()) {
            UnitRecords.readPartition(reader, e.getKey().partition(), e.getValue(), all, records::add);
        }
        return byPartition(records);
    }

    /**
     * What compaction may leave of records written once each in order: per partition a subsequence of them (a
     * record written twice would follow the last one) holding the last record of every key.
     */
    private static void assertCompactedOnce(Map<Integer, List<String>> written, Map<Integer, List<String>> target) {
        assertThat(target.keySet()).isSubsetOf(written.keySet());
        written.forEach((partition, records) -> {
            List<String> left = target.getOrDefault(partition, List.of());
            int at = 0;
            for (String r : left) {
                while (at < records.size() && !records.get(at).equals(r)) {
                    at++;
                }
                assertThat(at).as("partition %d: %s restored once, in order", partition, r).isLessThan(records.size());
                at++;
            }
            Map<String, String> lastOfKey = new HashMap<>();
            records.forEach(r -> lastOfKey.put(keyOf(r), r));
            assertThat(left).as("partition %d keeps the last record of every key", partition).containsAll(lastOfKey.values());
        });
    }

    private static String keyOf(String shown) {
        return shown.split("\\|", -1)[1];
    }

    private static void createCompacted(String topic, int partitions) throws Exception {
        // served before it returns: the restore checks at once that its target exists
        SharedStack.get().kafka().createTopic(topic, partitions, Map.of("cleanup.policy", "compact", "segment.bytes", "1048576",
                "min.cleanable.dirty.ratio", "0.01", "min.compaction.lag.ms", "0", "delete.retention.ms", "86400000"));
    }

    /** Waits until the log cleaner removed some of the {@code written} records of {@code topic} (1 MB segments). */
    private static void awaitCleaned(String topic, long written) throws Exception {
        String bootstrap = SharedStack.get().kafka().bootstrapServers();
        Await.until("the cleaner compacting " + topic, Duration.ofMinutes(1), () -> KafkaTopicReader.readAll(bootstrap, topic).size() < written);
        System.out.printf("%s: %d of %d written records left by the cleaner%n", topic, KafkaTopicReader.readAll(bootstrap, topic).size(), written);
    }

    private static long completedCheckpoints(JobClient job) throws Exception {
        return SharedStack.get().miniCluster().getExecutionGraph(job.getJobID()).get(10, TimeUnit.SECONDS).getCheckpointStatsSnapshot()
                .getCounts().getNumberOfCompletedCheckpoints();
    }

    private static void abortOpenTransactions(String topic) throws Exception {
        try (Admin admin = SharedStack.get().kafka().admin()) {
            List<String> open = admin.listTransactions().all().get(30, TimeUnit.SECONDS).stream()
                    .filter(t -> t.state() == org.apache.kafka.clients.admin.TransactionState.ONGOING)
                    .map(org.apache.kafka.clients.admin.TransactionListing::transactionalId).toList();
            List<String> ours = new ArrayList<>();
            admin.describeTransactions(open).all().get(30, TimeUnit.SECONDS).forEach((id, d) -> {
                if (d.topicPartitions().stream().anyMatch(tp -> tp.topic().equals(topic))) {
                    ours.add(id);
                }
            });
            admin.fenceProducers(ours).all().get(30, TimeUnit.SECONDS);
        }
    }

    private static void cancel(JobClient job) throws Exception {
        try {
            job.cancel().get(1, TimeUnit.MINUTES);
        } catch (ExecutionException finishedFirst) {
            assertThat(finishedFirst).hasMessageContaining("FINISHED");
        }
    }
}
