package io.archiver.restore;

import io.archiver.table.TableArchiveFiles;
import io.archiver.restore.plan.RestoreSelection;
import io.archiver.restore.plan.RestorePlan;
import io.archiver.restore.ledger.RestoredRecords;
import io.archiver.archive.ArchiveFile;
import io.archiver.archive.ArchiveFiles;
import io.archiver.config.ArchiverConfig;
import io.archiver.archive.ArchiveFileReader;
import io.archiver.job.JobLauncher;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;
import io.archiver.testutils.ArchiveDamage;
import io.archiver.testutils.Await;
import io.archiver.testutils.Cli;
import io.archiver.testutils.KafkaTopicReader;
import io.archiver.testutils.KillsTaskManagers;
import io.archiver.testutils.LongRunning;
import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TestRecords;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static io.archiver.testutils.TestRecords.byPartition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The archive written back into Kafka: a read_committed consumer of the target topic reads every selected
 * archived record once, in its partition and offset order, with its key, value, headers and timestamp, also
 * when every TaskManager is killed mid-restore.
 */
@KillsTaskManagers
@LongRunning(seconds = 63)
class RestoreITCase {

    private static final int PARTITIONS = 3;

    @Test
    void restoreIntoARenamedTopicWritesEveryArchivedRecordOnceInOrderAlsoAcrossAFailure() throws Exception {
        // values as JSON documents embedded in the lines (some with spaces and line breaks): restored byte for byte
        Archived archived = archive("restore-faults", 6_000, 0,
                Map.of("record.key.format", "string", "record.value.format", "json", "record.header.format", "string"));
        String target = archived.topic + "-restored";
        SharedStack.get().kafka().createTopic(target, PARTITIONS);
        RestoreSelection selection = RestoreSelection.parse(archived.topic, archived.topic + "=" + target, null);
        RestorePlan plan = RestorePlan.of(TableArchiveFiles.of(archived.config), selection, new ArchiveFileReader(PayloadFormats.BYTES));
        assertThat(plan.files().size()).as("several files per partition, so the restore is cut mid-way").isGreaterThan(PARTITIONS);

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(RestoreJob.settings(archived.config));
        RestoreJob.build(env, archived.config, plan, selection, false, new java.io.PrintWriter(System.out));
        JobClient job = env.executeAsync("restore under faults");
        Await.until("the restore's first records written", Duration.ofMinutes(2), () -> endOffsets(target, "read_uncommitted") > 0);
        SharedStack.get().killAndReplaceTaskManagers();
        job.getJobExecutionResult().get(3, TimeUnit.MINUTES);

        assertThat(byPartition(committed(target, archived.records.size()))).isEqualTo(byPartition(archived.records));
        Cli.Result verified = Cli.run(archived.config, "restore", "--topics", archived.topic, "--rename", archived.topic + "=" + target,
                "--verify");
        assertThat(verified.code()).as(verified.out()).isZero();
        assertThat(verified.out()).contains("(" + archived.records.size() + " records)");
    }

    @Test
    void anArchiveOfThePerTopicLayoutRestoresEachPartitionsRecordsOnceInOrder() throws Exception {
        Archived archived = archive("restore-per-topic", 4_000, 0, Map.of("sink.format", "parquet", "sink.layout", "per-topic"));
        String target = archived.topic + "-restored";
        SharedStack.get().kafka().createTopic(target, PARTITIONS);

        Cli.Result restored = Cli.run(archived.config, "restore", "--topics", archived.topic, "--rename", archived.topic + "=" + target);

        assertThat(restored.code()).as(restored.out()).isZero();
        assertThat(byPartition(committed(target, archived.records.size()))).isEqualTo(byPartition(archived.records));
        Cli.Result verified = Cli.run(archived.config, "restore", "--topics", archived.topic, "--rename", archived.topic + "=" + target,
                "--verify");
        assertThat(verified.code()).as(verified.out()).isZero();
        assertThat(verified.out()).contains("(" + archived.records.size() + " records)");
    }

    @Test
    void aRestoreEndsAsSoonAsItsLastFileIsWrittenNotAtTheNextCheckpointInterval() throws Exception {
        Archived archived = archive("restore-ends", 3_000);
        String target = archived.topic + "-restored";
        SharedStack.get().kafka().createTopic(target, PARTITIONS);
        Map<String, String> settings = new java.util.HashMap<>(archived.config.toMap());
        settings.put("restore.checkpoint-interval", "2 min");

        long start = System.nanoTime();
        Cli.Result restored = Cli.run(ArchiverConfig.of(settings), "restore", "--topics", archived.topic, "--rename",
                archived.topic + "=" + target);
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(restored.code()).as(restored.out()).isZero();
        // before, it ended at the first checkpoint after its last record: anywhere in the 2 minutes
        assertThat(took).as("the restore's time with checkpoints every 2 min while files are read").isLessThan(Duration.ofSeconds(40));
        assertThat(byPartition(committed(target, archived.records.size()))).isEqualTo(byPartition(archived.records));
    }

    @Test
    void aRestoreCancelledAndStartedAgainWithoutStateWritesEachRecordOnceAndAThirdStartWritesNothing() throws Exception {
        Archived archived = archive("restore-again", 20_000, 2_048);
        String target = archived.topic + "-again";
        SharedStack.get().kafka().createTopic(target, PARTITIONS);
        String bootstrap = SharedStack.get().kafka().bootstrapServers();
        RestoreSelection selection = RestoreSelection.parse(archived.topic, archived.topic + "=" + target, null);
        RestorePlan plan = RestorePlan.of(TableArchiveFiles.of(archived.config), selection, new ArchiveFileReader(PayloadFormats.BYTES));
        // checkpoints (and so commits) often enough that the cancel comes between two of them
        Map<String, String> often = new java.util.HashMap<>(archived.config.toMap());
        often.put("restore.checkpoint-interval", "100 ms");
        often.put("parallelism", "1");
        ArchiverConfig config = ArchiverConfig.of(often);

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(RestoreJob.settings(config));
        RestoreJob.build(env, config, plan, selection, false, new java.io.PrintWriter(System.out));
        JobClient job = env.executeAsync("restore cancelled");
        Await.until("the restore's first commit", Duration.ofMinutes(2), () -> endOffsets(target, "read_committed") > 0);
        try {
            job.cancel().get(1, TimeUnit.MINUTES);
        } catch (java.util.concurrent.ExecutionException finishedFirst) {
            // the restore ended before the cancel: then the restarts below prove only that nothing is written twice
            assertThat(finishedFirst).hasMessageContaining("FINISHED");
        }
        int beforeRestart = KafkaTopicReader.readAll(bootstrap, target).size();
        System.out.printf("restore cancelled with %d of %d records committed%n", beforeRestart, archived.records.size());

        Cli.Result again = Cli.run(archived.config, "restore", "--topics", archived.topic, "--rename", archived.topic + "=" + target);
        assertThat(again.code()).as(again.out()).isZero();
        if (beforeRestart < archived.records.size()) {
            assertThat(again.out()).contains("records already restored into " + target);
        }
        assertThat(byPartition(committed(target, archived.records.size()))).isEqualTo(byPartition(archived.records));

        Cli.Result third = Cli.run(archived.config, "restore", "--topics", archived.topic, "--rename", archived.topic + "=" + target);
        assertThat(third.code()).as(third.out()).isZero();
        assertThat(committed(target, archived.records.size())).hasSize(archived.records.size());
    }

    @Test
    void dryRunPrintsThePlanAndWritesNothingThenUntilRestoresUpToThePointInTimeAndALaterRunGoesOnFromThereEachVerified() throws Exception {
        Archived archived = archive("restore-cli", 900);
        String target = archived.topic + "-copy";
        SharedStack.get().kafka().createTopic(target, PARTITIONS);

        Cli.Result plan = Cli.run(archived.config, "restore", "--rename", archived.topic + "=" + target, "--dry-run");
        assertThat(plan.code()).as(plan.out()).isZero();
        assertThat(plan.out())
                .contains(archived.topic + "-0").contains(target + "-0").contains(target + "-2")
                .contains("3 partitions").contains("900 records")
                .contains("3 of 3 partitions without findings (audited against Kafka)");
        assertThat(KafkaTopicReader.readAll(SharedStack.get().kafka().bootstrapServers(), target)).isEmpty();

        Instant until = Instant.ofEpochMilli(TestRecords.BASE_TIMESTAMP + 449_000);
        Cli.Result restored = Cli.run(archived.config, "restore", "--rename", archived.topic + "=" + target, "--until", until.toString());
        assertThat(restored.code()).as(restored.out()).isZero();
        List<ArchiveRecord> expected = archived.records.stream().filter(r -> r.getTimestamp() <= until.toEpochMilli()).toList();
        assertThat(expected).hasSize(450);
        assertThat(byPartition(committed(target, expected.size()))).isEqualTo(byPartition(expected));
        Cli.Result verified = Cli.run(archived.config, "restore", "--rename", archived.topic + "=" + target, "--until", until.toString(),
                "--verify");
        assertThat(verified.code()).as(verified.out()).isZero();
        assertThat(verified.out()).contains("Restore verified").contains("(450 records)");
        Cli.Result incomplete = Cli.run(archived.config, "restore", "--rename", archived.topic + "=" + target, "--verify");
        assertThat(incomplete.code()).as(incomplete.out()).isEqualTo(1);
        assertThat(incomplete.out()).contains("Restore NOT verified").containsPattern(target + "-0 +300 +150 +0 +150 +0");

        // the same restore with a later point in time goes on after what the first one wrote
        Cli.Result rest = Cli.run(archived.config, "restore", "--rename", archived.topic + "=" + target);
        assertThat(rest.code()).as(rest.out()).isZero();
        assertThat(rest.out()).contains(archived.topic + "-0: 150 records already restored");
        assertThat(byPartition(committed(target, archived.records.size()))).isEqualTo(byPartition(archived.records));
        assertThat(Cli.run(archived.config, "restore", "--rename", archived.topic + "=" + target, "--verify").code()).isZero();

        // a record someone else wrote into a target partition after the restore is found
        try (var producer = TestRecords.producer(SharedStack.get().kafka().bootstrapServers())) {
            producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(target, 1, null, new byte[] {1})).get();
        }
        Cli.Result extra = Cli.run(archived.config, "restore", "--rename", archived.topic + "=" + target, "--verify");
        assertThat(extra.code()).as(extra.out()).isEqualTo(1);
        assertThat(extra.out()).containsPattern(target + "-1 +300 +300 +0 +0 +1");
    }

    @Test
    void partitionsAndOffsetRangesRestoreOnlyTheirRecordsAndAnAdjacentRangeGoesOnAfterTheFirst() throws Exception {
        Archived archived = archive("restore-range", 900);
        String target = archived.topic + "-range";
        SharedStack.get().kafka().createTopic(target, PARTITIONS);
        String rename = archived.topic + "=" + target;

        Cli.Result first = Cli.run(archived.config, "restore", "--rename", rename, "--partitions", "1", "--offsets", "100-199");
        assertThat(first.code()).as(first.out()).isZero();
        assertThat(first.out()).contains("1 partitions").contains("only the records of offsets 100-199 are restored");
        Cli.Result second = Cli.run(archived.config, "restore", "--rename", rename, "--partitions", "1", "--offsets", "200-249");
        assertThat(second.code()).as(second.out()).isZero();

        List<ArchiveRecord> expected = archived.records.stream()
                .filter(r -> r.getPartition() == 1 && r.getOffset() >= 100 && r.getOffset() <= 249).toList();
        assertThat(expected).hasSize(150);
        assertThat(byPartition(committed(target, expected.size()))).isEqualTo(byPartition(expected));
        Cli.Result verified = Cli.run(archived.config, "restore", "--rename", rename, "--partitions", "1", "--offsets", "200-249",
                "--verify");
        assertThat(verified.code()).as(verified.out()).isZero();
        assertThat(verified.out()).contains("(50 records)");
        Cli.Result both = Cli.run(archived.config, "restore", "--rename", rename, "--partitions", "1", "--offsets", "100-249", "--verify");
        assertThat(both.code()).as(both.out()).isZero();
        assertThat(both.out()).as("the two ranges together, from where the first began").contains("(150 records)");
    }

    @Test
    void aDamagedArchiveIsShownInTheDryRunAndRestoredWithEachArchivedOffsetOnceInOrder() throws Exception {
        Archived archived = archive("restore-damaged", 6_000);
        String target = archived.topic + "-mended";
        SharedStack.get().kafka().createTopic(target, PARTITIONS);
        List<ArchiveFile> files = TableArchiveFiles.of(archived.config).list().committed();
        ArchiveFile deleted = ArchiveDamage.middleFile(files, 1);
        ArchiveFile copied = ArchiveDamage.middleFile(files, 2);
        ArchiveDamage.copy(copied.path(), new org.apache.flink.core.fs.Path(copied.path().getParent(), "part-copy-0-0.jsonl"));
        java.util.Set<Long> lost = new java.util.HashSet<>();
        new ArchiveFileReader(PayloadFormats.BYTES).offsets(deleted.path(), lost::add);
        deleted.path().getFileSystem().delete(deleted.path(), false);
        List<Long> gone = new ArchiveFileReader(PayloadFormats.BYTES).readAll(copied.path()).stream().map(ArchiveRecord::getOffset).toList();
        assertThat(gone).isNotEmpty();

        Cli.Result plan = Cli.run(archived.config, "restore", "--rename", archived.topic + "=" + target, "--dry-run");
        assertThat(plan.code()).as(plan.out()).isZero();
        assertThat(plan.out())
                .contains(archived.topic + "-1: committed records missing from the archive at offsets")
                .contains(archived.topic + "-2: " + gone.size() + " offsets archived twice (restored once)")
                .contains("1 of 3 partitions without findings (audited against Kafka)");

        Cli.Result restored = Cli.run(archived.config, "restore", "--rename", archived.topic + "=" + target);
        assertThat(restored.code()).as(restored.out()).isZero();
        List<ArchiveRecord> expected = new ArrayList<>();
        for (ArchiveRecord r : archived.records) {
            if (r.getPartition() != 1 || !lost.contains(r.getOffset())) {
                expected.add(r);
            }
        }
        assertThat(byPartition(committed(target, expected.size()))).isEqualTo(byPartition(expected));
        assertThat(Cli.run(archived.config, "restore", "--rename", archived.topic + "=" + target, "--verify").code()).isZero();
    }

    @Test
    void aRepartitionedRestoreWritesEachRecordOnceToItsKeysPartitionInOrderAndARestoreRunAgainGoesOnAfterIt() throws Exception {
        Archived archived = archive("restore-keyed", 6_000);
        String target = archived.topic + "-keyed";
        SharedStack.get().kafka().createTopic(target, 2);
        String rename = archived.topic + "=" + target;
        Cli.Result refused = Cli.run(archived.config, "restore", "--rename", rename);
        assertThat(refused.code()).isEqualTo(2);
        assertThat(refused.out()).contains("it has 2 partitions, the archive holds partition 2").contains("--repartition");

        // a first run up to a point in time, then the same restore without it: the second counts what the first
        // wrote per archived partition by the records' source headers, and goes on after it
        Instant half = Instant.ofEpochMilli(TestRecords.BASE_TIMESTAMP + 2_999_000);
        Cli.Result first = Cli.run(archived.config, "restore", "--rename", rename, "--repartition", "--until", half.toString());
        assertThat(first.code()).as(first.out()).isZero();
        assertThat(committed(target, 3_000)).hasSize(3_000);
        Cli.Result again = Cli.run(archived.config, "restore", "--rename", rename, "--repartition");
        assertThat(again.code()).as(again.out()).isZero();
        assertThat(again.out()).contains(archived.topic + "-0: 1000 records already restored into " + target + " (by key)");

        Map<String, String> expected = new TreeMap<>();
        archived.records.forEach(r -> expected.put(r.getPartition() + ":" + r.getOffset(), content(r)));
        Map<String, String> actual = new TreeMap<>();
        Map<String, Long> lastOffset = new java.util.HashMap<>();
        for (ArchiveRecord r : committed(target, archived.records.size())) {
            String[] source = new String(r.getHeaderValues()[r.getHeaderKeys().length - 1], java.nio.charset.StandardCharsets.UTF_8)
                    .split(":");
            int archivedPartition = Integer.parseInt(source[1]);
            long archivedOffset = Long.parseLong(source[2]);
            assertThat(r.getPartition()).isEqualTo(RestoredRecords.partitionOf(r.getKey(), archivedPartition, 2));
            Long before = lastOffset.put(r.getPartition() + "<" + archivedPartition, archivedOffset);
            assertThat(before == null || before < archivedOffset).as("order of archived partition %d in target partition %d",
                    archivedPartition, r.getPartition()).isTrue();
            ArchiveRecord withoutSource = new ArchiveRecord(r.getTopic(), r.getPartition(), r.getOffset(), r.getTimestamp(),
                    r.getTimestampType(), r.getKey(), r.getValue(),
                    Arrays.copyOf(r.getHeaderKeys(), r.getHeaderKeys().length - 1),
                    Arrays.copyOf(r.getHeaderValues(), r.getHeaderValues().length - 1));
            assertThat(actual.put(archivedPartition + ":" + archivedOffset, content(withoutSource))).as("restored once").isNull();
        }
        assertThat(actual).isEqualTo(expected);
        Cli.Result verified = Cli.run(archived.config, "restore", "--rename", rename, "--repartition", "--verify");
        assertThat(verified.code()).as(verified.out()).isZero();
        assertThat(verified.out()).contains("(6000 records)");

        try (var producer = TestRecords.producer(SharedStack.get().kafka().bootstrapServers())) {
            producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(target, 0, null, new byte[] {1})).get();
        }
        Cli.Result foreign = Cli.run(archived.config, "restore", "--rename", rename, "--repartition", "--verify");
        assertThat(foreign.code()).as(foreign.out()).isEqualTo(1);
        assertThat(foreign.out()).contains(target + "-0: 1 records without the kafka-s3-archiver.source header");
    }

    private static String content(ArchiveRecord r) {
        return byPartition(List.of(r)).values().iterator().next().get(0);
    }

    @Test
    void aTargetWithFewerPartitionsOrAnUnknownTopicIsRefusedBeforeAnythingIsWritten() throws Exception {
        Archived archived = archive("restore-narrow", 30);
        String target = archived.topic + "-narrow";
        SharedStack.get().kafka().createTopic(target, 1);

        Cli.Result result = Cli.run(archived.config, "restore", "--rename", archived.topic + "=" + target);

        assertThat(result.code()).isEqualTo(2);
        assertThat(result.out()).contains("Cannot restore into '" + target + "': it has 1 partitions, the archive holds partition 2");
        Cli.Result missing = Cli.run(archived.config, "restore", "--topics", "no-such-topic");
        assertThat(missing.code()).isEqualTo(2);
        assertThat(missing.out()).contains("holds no committed files of [no-such-topic]. Its topics: [" + archived.topic + "]");
        Cli.Result neverRun = Cli.run(archived.config, "restore", "--rename", archived.topic + "=" + target, "--verify");
        assertThat(neverRun.code()).isEqualTo(2);
        assertThat(neverRun.out()).contains("Nothing to verify: the restore ledger (kafka-s3-archiver-restores) holds no restore");
        assertThatThrownBy(() -> RestoreSelection.parse(null, "orders", null)).hasMessageContaining("archived=target");
    }

    record Archived(String topic, ArchiverConfig config, List<ArchiveRecord> records) {}

    /** A topic of {@code count} records with keys, null keys, tombstones and headers, archived by a batch job. */
    static Archived archive(String name, int count) throws Exception {
        return archive(name, count, 0);
    }

    static Archived archive(String name, int count, int valueBytes) throws Exception {
        return archive(name, count, valueBytes, Map.of());
    }

    /** With {@code valueBytes} > 0, every value is that many random letters; {@code overrides} on top of JSON Lines files. */
    static Archived archive(String name, int count, int valueBytes, Map<String, String> overrides) throws Exception {
        SharedStack stack = SharedStack.get();
        String topic = SharedStack.uniqueName(name);
        stack.kafka().createTopic(topic, PARTITIONS);
        List<ArchiveRecord> records = valueBytes > 0
                ? TestRecords.produceLargeValues(stack.kafka().bootstrapServers(), topic, PARTITIONS, count, valueBytes)
                : TestRecords.produce(stack.kafka().bootstrapServers(), topic, PARTITIONS, 0, count);
        Map<String, String> settings = new java.util.HashMap<>(Map.of("sink.roll.max-part-size", valueBytes > 0 ? "1 mb" : "64 kb"));
        settings.putAll(overrides);
        return archiveTopic(topic, records, settings);
    }

    /** {@code topic}, holding {@code records}, archived by a batch job into JSON Lines files ({@code overrides} on top). */
    static Archived archiveTopic(String topic, List<ArchiveRecord> records, Map<String, String> overrides) throws Exception {
        Map<String, String> settings = SharedStack.get().jobSettings(topic, topic);
        settings.put("mode", "batch");
        settings.put("sink.format", "jsonl");
        settings.put("sink.roll.max-part-size", "64 kb");
        settings.putAll(overrides);
        ArchiverConfig config = ArchiverConfig.of(settings);
        JobLauncher.environment(config).executeAsync("archive " + topic).getJobExecutionResult().get(2, TimeUnit.MINUTES);
        return new Archived(topic, config, records);
    }

    /** {@link KafkaTopicReader#readCommitted} on the shared broker. */
    static List<ArchiveRecord> committed(String topic, int expected) throws Exception {
        return KafkaTopicReader.readCommitted(SharedStack.get().kafka().bootstrapServers(), topic, expected);
    }

    /** The sum of {@code topic}'s end offsets as a consumer of {@code isolation} sees them (markers included). */
    static long endOffsets(String topic, String isolation) {
        return endOffsets(topic, isolation, PARTITIONS);
    }

    static long endOffsets(String topic, String isolation, int topicPartitions) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedStack.get().kafka().bootstrapServers(),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation))) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < topicPartitions; p++) {
                partitions.add(new TopicPartition(topic, p));
            }
            return consumer.endOffsets(partitions).values().stream().mapToLong(Long::longValue).sum();
        }
    }
}
