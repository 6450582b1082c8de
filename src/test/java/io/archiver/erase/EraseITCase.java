package io.archiver.erase;

import io.archiver.archive.ArchiveFile;
import io.archiver.archive.ArchiveFiles;
import io.archiver.archive.ArchiveRoot;
import io.archiver.config.ArchiverConfig;
import io.archiver.config.SinkLayout;
import io.archiver.fs.MetadataObjects;
import io.archiver.job.JobLauncher;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;
import io.archiver.testutils.ArchiveAssertions;
import io.archiver.testutils.Await;
import io.archiver.testutils.CapturedLogs;
import io.archiver.testutils.Cli;
import io.archiver.testutils.FaultScenario;
import io.archiver.testutils.KafkaTopicReader;
import io.archiver.testutils.KillsTaskManagers;
import io.archiver.testutils.LongRunning;
import io.archiver.testutils.PositionProbe;
import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TableContents;
import io.archiver.testutils.TestRecords;

import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.time.Duration;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Erasure of a key, against the read_committed truth minus the key's records: a dry run changes nothing; `--apply`
 * without the keyed hash's secret is refused naming it; with it, the key's records are gone from every file and every
 * other record stays as it was (both layouts, Parquet and JSON Lines), the erasure log holds the key only as its keyed
 * hash, audit counts the records as erased (Kafka still holds them) and stays clean, repair archives nothing again, a
 * second erasure finds nothing, DuckDB finds none of the key's rows. An erasure killed (SIGKILL) as soon as it has
 * rewritten a file leaves every file whole, is reported by audit and finished by running it again. Next to a streaming job: files of its last commit erased while
 * it is stopped, the job resumed from its savepoint (which commits those files again) runs on, and the archive holds
 * every other record exactly once; an erasure while the job archives the same partitions, then a TaskManager kill,
 * loses and doubles nothing; an erasure waits for the commit the running job makes, and refuses one cut short by a
 * cancel. With an Iceberg table, the files are swapped in one snapshot and the table (Iceberg's
 * reader, DuckDB) and the folders equal the truth without the keys. The commands run in this JVM, whose Flink
 * environment is the shared MiniCluster's: the search and the rewrite run as batch jobs there, as under
 * {@code flink run}; the erasure killed runs in a JVM of its own, in its threads, as {@code bin/archiver} does.
 */
@KillsTaskManagers
@LongRunning(seconds = 140)
class EraseITCase {

    private static final String PERSON = "person-7";
    private static final String SECRET = "dpo-secret-4Kq";
    private static final int PER_PARTITION = 5;
    private static final Duration WAIT = Duration.ofMinutes(2);

    @ParameterizedTest
    @CsvSource({"per-topic, parquet", "per-partition, jsonl"})
    void theKeysRecordsGoEveryOtherRecordStaysAndAuditRepairAndASecondErasureHonourIt(String layout, String format) throws Exception {
        ArchiverConfig config = archiveWithPerson("erase-" + format, Map.of("sink.layout", layout, "sink.format", format));
        PayloadFormats formats = PayloadFormats.of(config);
        List<ArchiveRecord> truth = KafkaTopicReader.readAll(SharedStack.get().kafka().bootstrapServers(), topic(config));
        List<ArchiveRecord> expected = withoutPerson(truth);
        assertThat(truth.size() - expected.size()).as("the key's records in Kafka").isEqualTo(4 * 2 * PER_PARTITION);

        Cli.Result dry = Cli.run(config, "erase", "--key", PERSON);
        assertThat(dry.code()).as(dry.out()).isZero();
        assertThat(dry.out()).contains("Would erase 40 records from").contains("Run again with --apply")
                .contains("Searching and rewriting as Flink batch jobs on the cluster");
        ArchiveAssertions.assertExactlyOnce(config.sinkPath(), formats, truth);

        Cli.Result noSecret = Cli.run(config, "erase", "--key", PERSON, "--apply");
        assertThat(noSecret.code()).as(noSecret.out()).isEqualTo(2);
        assertThat(noSecret.out()).contains("erase.key-hash-secret").contains("--log-keys PLAIN");

        Cli.Result erased = Cli.run(config, "erase", "--key", PERSON, "--apply", "-Derase.key-hash-secret=" + SECRET);
        assertThat(erased.code()).as(erased.out()).isZero();
        assertThat(erased.out()).contains("Erased 40 records from").doesNotContain(SECRET);
        ArchiveAssertions.assertExactlyOnce(config.sinkPath(), formats, expected);
        assertRequestHoldsOnlyTheKeysHash(config);

        Cli.Result audit = Cli.run(config, "audit");
        assertThat(audit.out()).as("audit after the erasure").contains("Verdict: CLEAN")
                .containsPattern("Erased, " + topic(config) + "-0: 10 records \\(on request");
        Cli.Result repair = Cli.run(config, "repair", "--apply");
        assertThat(repair.code()).as(repair.out()).isZero();
        ArchiveAssertions.assertExactlyOnce(config.sinkPath(), formats, expected);
        Cli.Result again = Cli.run(config, "erase", "--key", PERSON, "--apply", "-Derase.key-hash-secret=" + SECRET);
        assertThat(again.out()).as("a second erasure of the key").contains("Nothing to erase");
        if (format.equals("parquet")) {
            assertThat(duckDb(config, "count(*) FILTER (WHERE key = '" + PERSON + "'::BLOB)")).as("the key's rows DuckDB reads").isZero();
            assertThat(duckDb(config, "count(*)")).as("rows DuckDB reads").isEqualTo(expected.size());
        }
    }

    @Test
    void anErasureByATypedFieldTakesTheRecordsHoldingItOutOfATypedArchiveAndAMisspeltFieldIsRefused() throws Exception {
        SharedStack stack = SharedStack.get();
        io.archiver.local.EmbeddedSchemaRegistry registry = stack.registry();
        String topic = SharedStack.uniqueName("erase-where");
        stack.kafka().createTopic(topic, 4);
        org.apache.avro.Schema order = new org.apache.avro.Schema.Parser().parse("""
                {"type": "record", "name": "ErasableOrder", "namespace": "shop", "fields": [
                  {"name": "order", "type": "long"},
                  {"name": "customer_id", "type": "long"},
                  {"name": "note", "type": "string"}
                ]}""");
        int id = registry.register(topic + "-value", "AVRO", order.toString());
        try (KafkaProducer<byte[], byte[]> producer = TestRecords.producer(stack.kafka().bootstrapServers())) {
            for (int i = 0; i < 800; i++) {
                org.apache.avro.generic.GenericRecord r = new org.apache.avro.generic.GenericData.Record(order);
                r.put("order", (long) i);
                r.put("customer_id", (long) (i % 13));
                r.put("note", "order " + i + " of customer " + i % 13);
                producer.send(new ProducerRecord<>(topic, i % 4, ("o-" + i).getBytes(StandardCharsets.UTF_8),
                        io.archiver.registry.RegistryPayloads.encode(id, order, r)));
            }
        }
        ArchiverConfig config = archiveInBatch(topic, Map.of("record.value.format", "avro", "schema-registry.url", registry.url(),
                "sink.layout", "per-topic", "sink.parquet.bloom-filter-columns", "key,value_decoded.customer_id"));
        List<ArchiveRecord> truth = KafkaTopicReader.readAll(stack.kafka().bootstrapServers(), topic);
        List<ArchiveRecord> expected = truth.stream()
                .filter(r -> Integer.parseInt(new String(r.getKey(), StandardCharsets.UTF_8).substring(2)) % 13 != 4).toList();

        Cli.Result misspelt = Cli.run(config, "erase", "--where", "value_decoded.customerid=4", "--apply", "--log-keys", "PLAIN");
        assertThat(misspelt.code()).as(misspelt.out()).isEqualTo(2);
        assertThat(misspelt.out()).contains("No file of").contains("value_decoded.customerid").contains("Nothing erased");
        Cli.Result erased = Cli.run(config, "erase", "--where", "value_decoded.customer_id=4", "--apply", "-Derase.key-hash-secret=" + SECRET);
        assertThat(erased.code()).as(erased.out()).isZero();
        assertThat(erased.out()).contains("Erased " + (truth.size() - expected.size()) + " records").doesNotContain("record by record");

        ArchiveAssertions.assertExactlyOnce(config.sinkPath(), PayloadFormats.of(config), expected);
        assertThat(Cli.run(config, "audit").out()).as("audit after the erasure").contains("Verdict: CLEAN");
        Path requests = ArchiveRoot.of(config).erasures();
        String request = new String(MetadataObjects.read(requests.getFileSystem().listStatus(requests)[0].getPath()).orElseThrow(),
                StandardCharsets.UTF_8);
        assertThat(request).contains("value_decoded.customer_id").contains(ErasureLog.hmac(SECRET, "4".getBytes(StandardCharsets.UTF_8)));
        assertThat(duckDb(config, "count(*) FILTER (WHERE value_decoded.customer_id = 4)")).as("the customer's rows DuckDB reads").isZero();
        assertThat(duckDb(config, "count(*)")).as("rows DuckDB reads").isEqualTo(expected.size());
    }

    @Test
    void theKeysDeadLettersGoTooAndRepairNeverArchivesThemAgainWhenTheRejectedAreRearchived() throws Exception {
        SharedStack stack = SharedStack.get();
        String topic = SharedStack.uniqueName("erase-dead");
        stack.kafka().createTopic(topic, 2);
        try (KafkaProducer<byte[], byte[]> producer = TestRecords.producer(stack.kafka().bootstrapServers())) {
            for (int i = 0; i < 400; i++) {
                byte[] key = (i % 10 == 3 ? PERSON : "k-" + i).getBytes(StandardCharsets.UTF_8);
                // the last records valid: repair leaves rejected records at a partition's position to the job
                byte[] value = (i % 7 == 0 && i < 390 ? "not json " + i : "{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8);
                producer.send(new ProducerRecord<>(topic, i % 2, key, value));
            }
        }
        ArchiverConfig config = archiveInBatch(topic, Map.of("record.value.format", "json", "errors.policy", "dead-letter"));
        List<ArchiveRecord> truth = KafkaTopicReader.readAll(stack.kafka().bootstrapServers(), topic);
        List<ArchiveRecord> expected = withoutPerson(truth);
        List<ArchiveRecord> dead = ArchiveAssertions.archived(config.deadLetterPath(), PayloadFormats.BYTES);
        int personDead = (int) dead.stream().filter(EraseITCase::isPerson).count();
        assertThat(personDead).as("the person's dead letters").isPositive();

        Cli.Result erased = Cli.run(config, "erase", "--key", PERSON, "--apply", "--log-keys", "PLAIN");
        assertThat(erased.code()).as(erased.out()).isZero();
        assertThat(erased.out()).contains("(dead letters)").contains("Erased " + (truth.size() - expected.size()) + " records");
        List<ArchiveRecord> left = ArchiveAssertions.archived(config.deadLetterPath(), PayloadFormats.BYTES);
        assertThat(left).as("dead letters after the erasure").hasSize(dead.size() - personDead).noneMatch(EraseITCase::isPerson);
        assertThat(Cli.run(config, "audit").out()).as("audit after the erasure").contains("Verdict: CLEAN").contains("Erased, ");

        // values as bytes now: every dead letter is valid, and re-archived but the erased ones
        ArchiverConfig asBytes = config.with(Map.of("record.value.format", "bytes"));
        Cli.Result repair = Cli.run(asBytes, "repair", "--apply", "--rearchive-rejected");
        assertThat(repair.code()).as(repair.out()).isZero();
        ArchiveAssertions.assertExactlyOnce(asBytes.sinkPath(), PayloadFormats.of(asBytes), expected);
        assertThat(Cli.run(asBytes, "audit").out()).as("audit after re-archiving the rejected").contains("Verdict: CLEAN");
    }

    @Test
    void aKillNineOfTheErasureMidwayLeavesEveryFileWholeAndRunningItAgainFinishesIt() throws Exception {
        SharedStack stack = SharedStack.get();
        String topic = SharedStack.uniqueName("erase-kill");
        stack.kafka().createTopic(topic, 4);
        // the person among every 40 records of each partition: in nearly every file of 16 KB
        try (KafkaProducer<byte[], byte[]> producer = TestRecords.producer(stack.kafka().bootstrapServers())) {
            for (int i = 0; i < 2_400; i++) {
                for (int p = 0; p < 4; p++) {
                    byte[] key = (i % 40 == 7 ? PERSON : "k-" + i).getBytes(StandardCharsets.UTF_8);
                    producer.send(new ProducerRecord<>(topic, p, key, ("{\"n\":" + i + ",\"pad\":\"" + "x".repeat(60) + "\"}").getBytes(StandardCharsets.UTF_8)));
                }
            }
        }
        ArchiverConfig config = archiveInBatch(topic, Map.of("sink.roll.max-part-size", "16kb"));
        List<ArchiveRecord> truth = KafkaTopicReader.readAll(stack.kafka().bootstrapServers(), topic);
        List<ArchiveRecord> expected = withoutPerson(truth);
        int files = ArchiveFiles.listed(ArchiveRoot.of(config)).list().committed().size();

        long killedAfter = killOnceAFileIsRewritten(config, WAIT);

        // every file whole: each reads to its end, every other record exactly once, the person's at most once
        PayloadFormats formats = PayloadFormats.of(config);
        List<ArchiveRecord> archived = ArchiveAssertions.archived(config.sinkPath(), formats);
        List<ArchiveRecord> persons = archived.stream().filter(EraseITCase::isPerson).toList();
        assertThat(persons).as("the person's records left by the erasure killed %d ms after a file was rewritten (of %d files)",
                killedAfter, files).doesNotHaveDuplicates().hasSizeLessThan(truth.size() - expected.size()).isNotEmpty();
        assertThat(withoutPerson(archived)).as("every other record").containsExactlyInAnyOrderElementsOf(expected);
        assertThat(Cli.run(config, "audit").out()).as("audit of the erasure killed midway").doesNotContain("Verdict: CLEAN")
                .contains("Erasure not finished").contains("run erase --apply again");

        Cli.Result rest = Cli.run(config, "erase", "--key", PERSON, "--apply", "--log-keys", "PLAIN");
        assertThat(rest.code()).as(rest.out()).isZero();
        assertThat(rest.out()).contains("Erased " + persons.size() + " records");
        assertThat(Cli.run(config, "audit").out()).as("audit once it is finished").contains("Verdict: CLEAN");
        ArchiveAssertions.assertExactlyOnce(config.sinkPath(), formats, expected);
    }

    @Test
    void filesOfTheSavepointsCommitErasedWhileTheJobIsStoppedAreTakenAsCommittedWhenItResumes() throws Exception {
        // no checkpoint before the savepoint (stopped long before the first, which Flink delays by a random time between
        // the minimum pause and the interval: both 10 s): every file the job wrote is one its savepoint's commit names,
        // which the resumed job commits again
        try (FaultScenario s = FaultScenario.start("erase-live", 3_000, 1_000, Map.of("checkpoint.interval", "10 s",
                "flink.execution.checkpointing.min-pause", "10 s", "fencing.lease-timeout", "20 s"))) {
            ArchiverConfig config = s.config();
            s.awaitProducerDone();
            String savepoint = s.stopWithSavepoint();
            List<String> committed = ArchiveFiles.listed(ArchiveRoot.of(config)).list().committed().stream()
                    .map(f -> f.path().toString()).distinct().toList();
            assertThat(committed).as("files of the savepoint's commit (none: the job had read nothing when stopped)").isNotEmpty();
            List<byte[]> keys = eraseKeys(config, ArchiveAssertions.archived(config.sinkPath(), PayloadFormats.of(config)).stream()
                    .filter(r -> r.getKey() != null && r.getOffset() % 50 == 0).map(ArchiveRecord::getKey).toList());
            Set<String> rewritten = new HashSet<>(new ErasureLog(ArchiveRoot.of(config)).rewrittenFiles());
            rewritten.retainAll(committed);
            assertThat(rewritten).as("files of the savepoint's commit the erasure rewrote").isNotEmpty();

            CapturedLogs logs = CapturedLogs.start();
            s.resume(savepoint, Map.of("checkpoint.interval", "500 ms", "flink.execution.checkpointing.min-pause", "0 ms",
                    "fencing.lease-timeout", "3 s"));
            List<ArchiveRecord> truth = KafkaTopicReader.readCommitted(SharedStack.get().kafka().bootstrapServers(), s.topic(), (int) s.committedSoFar());
            List<ArchiveRecord> expected = without(truth, keys);
            s.awaitArchived(expected.size());
            assertThat(logs.containing("rewritten by an erasure since: not committed again")).as("files of the savepoint's commit "
                    + "an erasure rewrote, taken as committed by the resumed job").hasSize(rewritten.size());
            logs.close();
            assertThat(s.lastFailure()).as("a failure of the resumed job").isEmpty();
            s.cancel();
            ArchiveAssertions.assertExactlyOnce(config.sinkPath(), PayloadFormats.of(config), expected);
            assertThat(Cli.run(config, "audit").out()).as("audit after the resumed job").contains("Verdict: CLEAN");
        }
    }

    @Test
    void anErasureWhileTheJobArchivesTheSamePartitionsLosesAndDoublesNothingThroughAKillAfterIt() throws Exception {
        try (FaultScenario s = FaultScenario.start("erase-running", 8_000, 1_000, Map.of())) {
            ArchiverConfig config = s.config();
            s.awaitArchived(3_000);
            List<byte[]> keys = eraseNewestKeys(config);
            // the TaskManagers' replacements restore the last checkpoint, whose files the job commits again
            SharedStack.get().killAndReplaceTaskManagers();
            awaitEveryOtherRecordExactlyOnce(s, keys);
            assertThat(Cli.run(config, "audit").out()).as("audit after the job").contains("Verdict: CLEAN");
        }
    }

    @Test
    void anErasureAwaitsTheCommitTheRunningJobMakesAndRefusesACommitCutShort() throws Exception {
        // a lease that outlives the halted commits below (the job renews it at checkpoints, which wait for the commit)
        try (FaultScenario s = FaultScenario.start("erase-commit", 16_000, 400, Map.of("fencing.lease-timeout", "60 s"))) {
            ArchiverConfig config = s.config();
            PositionProbe probe = new PositionProbe(config.sinkPath(), s.topic(), FaultScenario.PARTITIONS);
            s.awaitArchived(2_000);
            List<byte[]> keys = newestKeys(config);
            haltCommits(s, probe);
            Cli.Running erase = Cli.start(config, eraseArgs(keys));
            Await.until("the erasure waiting for the job's commit", WAIT, () -> erase.out().contains("whose commit of"));
            s.s3Faults().heal();
            Cli.Result erased = erase.await(WAIT);
            assertThat(erased.code()).as(erased.out()).isZero();
            assertThat(erased.out()).contains("Erased " + keys.size() + " records").contains("were completed after the search");

            haltCommits(s, probe);
            s.cancel();
            s.s3Faults().heal();
            // the erasure asks the cluster whether the lease's job ended, as under flink run, whose client knows the cluster
            URI rest = SharedStack.get().miniCluster().getRestAddress().get(10, TimeUnit.SECONDS);
            Cli.Result refused = Cli.run(config, eraseArgs(keys, "-Dflink.rest.address=" + rest.getHost(), "-Dflink.rest.port=" + rest.getPort()));
            assertThat(refused.code()).as(refused.out()).isOne();
            assertThat(refused.out()).contains("error: Not erasing: the last commit of the job was cut short").doesNotContain("waiting up to");

            s.restartWithoutState(Map.of("fencing.lease-timeout", "3 s"));
            awaitEveryOtherRecordExactlyOnce(s, keys);
        }
    }

    /**
     * Once the scenario's producer is done, waits until the job archived every record of the read_committed truth but those
     * of {@code keys}, cancels it, and checks the archive holds each of them exactly once.
     */
    private static void awaitEveryOtherRecordExactlyOnce(FaultScenario s, List<byte[]> keys) throws Exception {
        s.awaitProducerDone();
        List<ArchiveRecord> expected = without(
                KafkaTopicReader.readCommitted(SharedStack.get().kafka().bootstrapServers(), s.topic(), (int) s.committedSoFar()), keys);
        s.awaitArchived(expected.size());
        s.cancel();
        ArchiveAssertions.assertExactlyOnce(s.config().sinkPath(), PayloadFormats.of(s.config()), expected);
    }

    /** Halts the job's commits of archive files until the S3 faults heal, once a position record names a file not complete. */
    private static void haltCommits(FaultScenario s, PositionProbe probe) throws Exception {
        s.s3Faults().haltCompletesAfter(0);
        Await.until("a position record naming a file not complete", WAIT, () -> !probe.uncommittedFiles().isEmpty());
    }

    /** Erases the keys of each partition's 5 newest archived records (each key's only record); returns the keys. */
    private static List<byte[]> eraseNewestKeys(ArchiverConfig config) throws Exception {
        return eraseKeys(config, newestKeys(config));
    }

    /** The keys of each partition's 5 newest archived records (each key's only record). */
    private static List<byte[]> newestKeys(ArchiverConfig config) throws Exception {
        Map<Integer, java.util.TreeMap<Long, byte[]>> newest = new java.util.TreeMap<>();
        for (ArchiveRecord r : ArchiveAssertions.archived(config.sinkPath(), PayloadFormats.of(config))) {
            if (r.getKey() != null) {
                java.util.TreeMap<Long, byte[]> ofPartition = newest.computeIfAbsent(r.getPartition(), p -> new java.util.TreeMap<>());
                ofPartition.put(r.getOffset(), r.getKey());
                if (ofPartition.size() > 5) {
                    ofPartition.pollFirstEntry();
                }
            }
        }
        List<byte[]> keys = new ArrayList<>();
        newest.values().forEach(ofPartition -> keys.addAll(ofPartition.values()));
        return keys;
    }

    /** Erases {@code keys} (each key's only record) with {@code erase --keys-file}; returns them. */
    private static List<byte[]> eraseKeys(ArchiverConfig config, List<byte[]> keys) throws Exception {
        assertThat(keys).as("keys to erase").isNotEmpty();
        Cli.Result erased = Cli.run(config, eraseArgs(keys));
        assertThat(erased.code()).as(erased.out()).isZero();
        assertThat(erased.out()).contains("Erased " + keys.size() + " records");
        return keys;
    }

    /** The arguments of {@code erase --apply} of {@code keys} (logged as given), then {@code more}. */
    private static String[] eraseArgs(List<byte[]> keys, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of("erase", "--keys-file", keysFile(keys), "--apply", "--log-keys", "PLAIN"));
        args.addAll(List.of(more));
        return args.toArray(new String[0]);
    }

    /** A keys file of {@code keys}, as base64 lines. */
    private static String keysFile(List<byte[]> keys) throws Exception {
        java.nio.file.Path file = java.nio.file.Files.createTempFile("keys", ".txt");
        java.nio.file.Files.write(file, keys.stream().map(k -> "base64:" + Base64.getEncoder().encodeToString(k)).toList());
        return file.toString();
    }

    /** {@code records} but those whose key is one of {@code keys}. */
    private static List<ArchiveRecord> without(List<ArchiveRecord> records, List<byte[]> keys) {
        Set<String> erased = new HashSet<>();
        keys.forEach(k -> erased.add(Arrays.toString(k)));
        return records.stream().filter(r -> r.getKey() == null || !erased.contains(Arrays.toString(r.getKey()))).toList();
    }

    @Test
    void withATableTheErasedFilesAreSwappedInOneSnapshotAndTheTableAndFoldersEqualTheTruthWithoutTheKeys(@TempDir java.nio.file.Path catalogs)
            throws Exception {
        Map<String, String> settings = TableContents.jobSettings(catalogs.resolve("erase.db"), SinkLayout.PER_PARTITION);
        try (FaultScenario s = FaultScenario.start("erase-table", 3_000, 1_000, settings)) {
            ArchiverConfig config = s.config();
            List<ArchiveRecord> truth = TableContents.drainIntoTable(s);
            List<byte[]> keys = truth.stream().filter(r -> r.getKey() != null && r.getOffset() % 40 == 7).map(ArchiveRecord::getKey).toList();
            java.nio.file.Path file = catalogs.resolve("keys.txt");
            java.nio.file.Files.write(file, keys.stream().map(k -> new String(k, StandardCharsets.UTF_8)).toList());
            Cli.Result erased = Cli.run(config, "erase", "--keys-file", file.toString(), "--apply", "--log-keys", "PLAIN");
            assertThat(erased.code()).as(erased.out()).isZero();
            assertThat(erased.out()).contains("Erased " + keys.size() + " records");

            Set<String> gone = new HashSet<>();
            keys.forEach(k -> gone.add(new String(k, StandardCharsets.UTF_8)));
            List<ArchiveRecord> expected = truth.stream()
                    .filter(r -> r.getKey() == null || !gone.contains(new String(r.getKey(), StandardCharsets.UTF_8))).toList();
            TableContents.assertEqualsTruth(config, s.topic(), expected);
            PayloadFormats formats = PayloadFormats.of(config);
            ArchiveAssertions.assertExactlyOnce(config.sinkPath(), formats, expected);
            assertThat(TableContents.appendingJobs(config, s.topic())).as("jobs of the table's snapshots").contains("erase");
            assertThat(Cli.run(config, "audit").out()).as("audit after the erasure").contains("Verdict: CLEAN");
        }
    }

    /**
     * Runs {@code erase --key PERSON --apply} in a JVM of its own and kills it (SIGKILL) as soon as a data file of the
     * archive has changed its length (been rewritten); returns how many ms after it saw that.
     */
    private static long killOnceAFileIsRewritten(ArchiverConfig config, Duration timeout) throws Exception {
        Map<String, Long> lengths = new java.util.HashMap<>();
        for (ArchiveFile f : ArchiveFiles.listed(ArchiveRoot.of(config)).list().committed()) {
            lengths.put(f.path().toString(), f.size());
        }
        List<String> command = new ArrayList<>();
        command.add(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> a.startsWith("--add-opens")).toList());
        command.addAll(List.of("-Xmx512m", "-cp", System.getProperty("java.class.path"), io.archiver.cli.ArchiverCli.class.getName(),
                "erase", "--key", PERSON, "--apply", "--log-keys", "PLAIN"));
        config.toMap().forEach((k, v) -> command.add("-D" + k + "=" + v));
        SharedStack.get().s3().flinkSettings().forEach((k, v) -> command.add("-Dflink." + k + "=" + v));
        java.io.File output = java.io.File.createTempFile("erase-kill", ".out");
        Process erase = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output).start();
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (System.nanoTime() < deadline && erase.isAlive()) {
                boolean rewritten = ArchiveFiles.listed(ArchiveRoot.of(config)).list().committed().stream()
                        .anyMatch(f -> lengths.containsKey(f.path().toString()) && lengths.get(f.path().toString()) != f.size());
                if (rewritten) {
                    long seen = System.nanoTime();
                    erase.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
                    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - seen);
                }
                Thread.onSpinWait();
            }
        } finally {
            erase.destroyForcibly();
        }
        throw new AssertionError("the erasure " + (erase.isAlive() ? "rewrote no file within " + timeout : "ended before it could be killed")
                + "; its output:\n" + java.nio.file.Files.readString(output.toPath()));
    }

    /** A topic of 4 partitions with the person's records among others, archived by a batch job. */
    private static ArchiverConfig archiveWithPerson(String name, Map<String, String> overrides) throws Exception {
        SharedStack stack = SharedStack.get();
        String topic = SharedStack.uniqueName(name);
        stack.kafka().createTopic(topic, 4);
        TestRecords.produce(stack.kafka().bootstrapServers(), topic, 4, 0, 1_200);
        producePerson(topic);
        TestRecords.produce(stack.kafka().bootstrapServers(), topic, 4, 1_200, 1_200);
        producePerson(topic);
        Map<String, String> settings = new java.util.HashMap<>(overrides);
        settings.put("sink.roll.max-part-size", "16kb");
        return archiveInBatch(topic, settings);
    }

    /** {@code topic} archived by a batch job of the shared stack's settings and {@code overrides}. */
    private static ArchiverConfig archiveInBatch(String topic, Map<String, String> overrides) throws Exception {
        Map<String, String> settings = SharedStack.get().jobSettings(topic, topic);
        settings.putAll(overrides);
        settings.put("mode", "batch");
        ArchiverConfig config = ArchiverConfig.of(settings);
        JobLauncher.environment(config).executeAsync("batch " + topic).getJobExecutionResult().get(2, TimeUnit.MINUTES);
        return config;
    }

    private static void producePerson(String topic) {
        try (KafkaProducer<byte[], byte[]> producer = TestRecords.producer(SharedStack.get().kafka().bootstrapServers())) {
            for (int p = 0; p < 4; p++) {
                for (int i = 0; i < PER_PARTITION; i++) {
                    producer.send(new ProducerRecord<>(topic, p, PERSON.getBytes(StandardCharsets.UTF_8),
                            ("{\"customer\":7,\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8)));
                }
            }
            producer.flush();
        }
    }

    private static List<ArchiveRecord> withoutPerson(List<ArchiveRecord> records) {
        return records.stream().filter(r -> !isPerson(r)).toList();
    }

    private static boolean isPerson(ArchiveRecord r) {
        return Arrays.equals(r.getKey(), PERSON.getBytes(StandardCharsets.UTF_8));
    }

    private static String topic(ArchiverConfig config) {
        return config.topics().get(0);
    }

    /** The request object: the key as its keyed hash, never as given. */
    private static void assertRequestHoldsOnlyTheKeysHash(ArchiverConfig config) throws Exception {
        Path folder = ArchiveRoot.of(config).erasures();
        FileStatus[] requests = folder.getFileSystem().listStatus(folder);
        assertThat(requests).hasSize(1);
        String request = new String(MetadataObjects.read(requests[0].getPath()).orElseThrow(), StandardCharsets.UTF_8);
        assertThat(request).contains(ErasureLog.hmac(SECRET, PERSON.getBytes(StandardCharsets.UTF_8))).contains("\"completed\"")
                .doesNotContain(PERSON).doesNotContain(Base64.getEncoder().encodeToString(PERSON.getBytes(StandardCharsets.UTF_8)));
    }

    /** {@code select} over the archive's Parquet files, read by DuckDB from a local copy. */
    private static long duckDb(ArchiverConfig config, String select) throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("erase-duckdb");
        int n = 0;
        // a file of the per-topic layout is listed once per partition it holds: copied once
        for (List<ArchiveFile> shares : ArchiveFile.byPath(ArchiveFiles.listed(ArchiveRoot.of(config)).list().committed()).values()) {
            Path path = shares.get(0).path();
            try (var in = path.getFileSystem().open(path)) {
                java.nio.file.Files.copy(in, dir.resolve((n++) + ".parquet"));
            }
        }
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT " + select + " FROM read_parquet('" + dir + "/*.parquet')")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
