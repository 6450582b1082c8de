package io.archiver.audit;

import io.archiver.table.TableArchiveFiles;
import io.archiver.archive.ArchiveListing;
import io.archiver.archive.ArchiveFile;
import io.archiver.archive.ArchiveFileReader;
import io.archiver.archive.ArchiveFiles;
import io.archiver.archive.ArchiveRoot;
import io.archiver.archive.VerificationReport;
import io.archiver.config.ArchiverConfig;
import io.archiver.config.SinkLayout;
import io.archiver.job.JobLauncher;
import io.archiver.record.PayloadFormats;
import io.archiver.testutils.ArchiveCounter;
import io.archiver.testutils.ArchiveDamage;
import io.archiver.testutils.Await;
import io.archiver.testutils.Cli;
import io.archiver.testutils.FaultScenario;
import io.archiver.testutils.KafkaTopicReader;
import io.archiver.testutils.LongRunning;
import io.archiver.testutils.PositionProbe;
import io.archiver.testutils.S3Faults;
import io.archiver.testutils.SharedMiniCluster;
import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TestRecords;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** The audit and cleanup commands against a real archive, a real broker and a real S3 server. */
@SharedMiniCluster
@LongRunning(seconds = 40)
class AuditITCase {

    @ParameterizedTest
    @EnumSource(SinkLayout.class)
    void cleanArchiveIsReportedCleanInFastAndDeepMode(SinkLayout layout) throws Exception {
        ArchiverConfig config = backfill("audit-clean", 4_000, Map.of("sink.layout", layout.configName()));
        for (String mode : new String[] {"--deep", "--orphan-age=PT1H"}) {
            Cli.Result r = Cli.run(config, "audit", mode);
            System.out.println(r.out());
            assertThat(r.code()).as(r.out()).isZero();
            assertThat(r.out()).contains("Verdict: CLEAN").contains(topic(config) + "-3");
        }
        Cli.Result json = Cli.run(config, "audit", "--json");
        assertThat(json.out()).contains("\"clean\" : true").contains("\"records\" : 1000");
    }

    @Test
    void transactionMarkersAreHolesButNotGaps() throws Exception {
        SharedStack stack = SharedStack.get();
        String topic = SharedStack.uniqueName("audit-tx");
        stack.kafka().createTopic(topic, 1);
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafka().bootstrapServers());
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, topic);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            producer.initTransactions();
            for (int t = 0; t < 3; t++) {
                producer.beginTransaction();
                for (int i = 0; i < 10; i++) {
                    producer.send(new ProducerRecord<>(topic, 0, null, ("v" + i).getBytes(StandardCharsets.UTF_8)));
                }
                producer.commitTransaction();
            }
        }
        Map<String, String> settings = stack.jobSettings(topic, topic);
        settings.put("mode", "batch");
        ArchiverConfig config = ArchiverConfig.of(settings);
        JobLauncher.environment(config).executeAsync("tx").getJobExecutionResult().get(2, TimeUnit.MINUTES);

        VerificationReport archive = stack.verifier(PayloadFormats.of(config)).verify(TableArchiveFiles.of(config));
        assertThat(archive.partition(topic, 0).holes()).as("commit markers leave offsets without records").isNotEmpty();
        Cli.Result r = Cli.run(config, "audit", "--deep");
        assertThat(r.code()).as(r.out()).isZero();
        assertThat(r.out()).contains("Verdict: CLEAN");
    }

    @Test
    void archivedRecordsOfAbortedTransactionsAreFindingsInFastAndDeepMode() throws Exception {
        SharedStack stack = SharedStack.get();
        String topic = SharedStack.uniqueName("audit-aborted");
        stack.kafka().createTopic(topic, 1);
        // transactions of 2,000 records, every second one aborted; row groups of 64 kb in files rolled at
        // 16 kb make files of a few hundred records, many of them inside one transaction: dense by their
        // footer although every record of them is aborted
        List<io.archiver.record.ArchiveRecord> committed =
                TestRecords.produceTransactions(stack.kafka().bootstrapServers(), topic, 1, 0, 12_000, 2_000, 2);
        Map<String, String> settings = stack.jobSettings(topic, topic);
        settings.put("mode", "batch");
        settings.put("kafka.properties.isolation.level", "read_uncommitted");
        settings.put("sink.parquet.row-group-size", "64kb");
        settings.put("sink.roll.max-part-size", "16kb");
        // the sizes above are snappy's: zstd packs so many more records into 16 kb that files span transactions
        settings.put("sink.parquet.compression", "snappy");
        ArchiverConfig config = ArchiverConfig.of(settings);
        JobLauncher.environment(config).executeAsync("aborted").getJobExecutionResult().get(2, TimeUnit.MINUTES);
        java.util.Set<Long> committedOffsets = new java.util.HashSet<>();
        committed.forEach(r -> committedOffsets.add(r.getOffset()));
        assertThat(denseFileWithAnOffsetNotIn(config, committedOffsets)).as("a dense file of aborted records").isTrue();

        for (String mode : new String[] {"--deep", "--orphan-age=PT1H"}) {
            Cli.Result r = Cli.run(config, "audit", mode);
            assertThat(r.code()).as(r.out()).isEqualTo(1);
            assertThat(r.out()).contains("Archived but not in Kafka, " + topic + "-0: 6000 records of ABORTED transactions, at ")
                    .contains("Verdict: FINDINGS. 0 missing, 0 duplicated, 6000 archived but not in Kafka");
        }
        AuditReport report = auditor().audit(TableArchiveFiles.of(config), config.topics(), "g", false);
        PartitionAudit p = report.getPartitions().get(0);
        assertThat(p.getAbortedRecords()).isEqualTo(6_000);
        assertThat(p.getAbortedRanges()).as("one run per aborted transaction").hasSize(3);
        assertThat(p.getMissing()).isZero();
        Cli.Result json = Cli.run(config, "audit", "--json");
        assertThat(json.out()).contains("\"abortedRecords\" : 6000").contains("\"clean\" : false");
    }

    @Test
    void committedArchiveOfATransactionalTopicIsCleanWithoutLagBehindItsLastMarker() throws Exception {
        SharedStack stack = SharedStack.get();
        String topic = SharedStack.uniqueName("audit-committed");
        stack.kafka().createTopic(topic, 3);
        TestRecords.produce(stack.kafka().bootstrapServers(), topic, 3, 0, 600);
        TestRecords.produceTransactions(stack.kafka().bootstrapServers(), topic, 3, 600, 3_000, 300, 3);
        Map<String, String> settings = stack.jobSettings(topic, topic);
        settings.put("mode", "batch");
        ArchiverConfig config = ArchiverConfig.of(settings);
        JobLauncher.environment(config).executeAsync("committed").getJobExecutionResult().get(2, TimeUnit.MINUTES);

        Cli.Result r = Cli.run(config, "audit");
        assertThat(r.code()).as(r.out()).isZero();
        assertThat(r.out()).contains("Verdict: CLEAN");
        AuditReport report = auditor().audit(TableArchiveFiles.of(config), config.topics(), "g", false);
        for (PartitionAudit p : report.getPartitions()) {
            assertThat(p.getLag()).as("lag of %s-%d, archived up to %d, stable at %d", topic, p.getPartition(), p.getLastOffset(),
                    p.getLastStableOffset()).isZero();
            assertThat(p.getLastStableOffset()).as("a commit marker follows the last record").isGreaterThan(p.getLastOffset() + 1);
        }
    }

    @Test
    void recordsCompactedAwayAfterArchivingAreHistoryNotFindings() throws Exception {
        SharedStack stack = SharedStack.get();
        String topic = SharedStack.uniqueName("audit-compacted");
        stack.kafka().createTopic(topic, 1, Map.of("cleanup.policy", "compact", "segment.ms", "100", "min.cleanable.dirty.ratio", "0.01",
                "min.compaction.lag.ms", "0", "delete.retention.ms", "100"));
        produceKeyed(topic, 0, 500, 50);
        Map<String, String> settings = stack.jobSettings(topic, topic);
        settings.put("mode", "batch");
        ArchiverConfig config = ArchiverConfig.of(settings);
        JobLauncher.environment(config).executeAsync("compacted").getJobExecutionResult().get(2, TimeUnit.MINUTES);
        // new versions of every key, in segments that roll, until the cleaner removes archived versions
        int[] round = {1};
        Await.until("compaction of archived records", Duration.ofMinutes(2), () -> {
            produceKeyed(topic, 500 * round[0]++, 50, 50);
            return KafkaTopicReader.readAll(stack.kafka().bootstrapServers(), topic).stream()
                    .filter(rec -> rec.getOffset() < 500).count() < 500;
        });

        AuditReport report = auditor().audit(TableArchiveFiles.of(config), config.topics(), "g", true);
        PartitionAudit p = report.getPartitions().get(0);
        assertThat(p.getCompactedSinceArchived()).isPositive();
        assertThat(report.isClean()).as("compacted records are history, not findings").isTrue();
        Cli.Result r = Cli.run(config, "audit");
        assertThat(r.code()).as(r.out()).isZero();
        assertThat(r.out()).contains("Compacted since archived, " + topic + "-0: ");
    }

    @Test
    void deletedAndCopiedFilesAreReportedAsGapsAndDuplicates() throws Exception {
        ArchiverConfig config = backfill("audit-damaged", 4_000, Map.of("sink.format", "jsonl", "sink.roll.max-part-size", "16kb"));
        List<ArchiveFile> files = TableArchiveFiles.of(config).list().committed();
        ArchiveFile victim = ArchiveDamage.middleFile(files, 1);
        ArchiveFile copied = ArchiveDamage.middleFile(files, 2);
        FileSystem fs = victim.path().getFileSystem();
        ArchiveDamage.copy(copied.path(), new Path(copied.path().getParent(), "part-copy-0-0.jsonl"));
        fs.delete(victim.path(), false);

        Cli.Result r = Cli.run(config, "audit", "--deep");
        System.out.println(r.out());
        assertThat(r.code()).as(r.out()).isEqualTo(1);
        assertThat(r.out()).contains("Verdict: FINDINGS").contains("Missing from " + topic(config) + "-1");
        AuditReport report = auditor().audit(TableArchiveFiles.of(config), config.topics(), "g", true);
        assertThat(report.getDuplicatedOffsets()).isEqualTo(copiedRecords(copied));
    }

    /**
     * A file whose records keep their offsets but not their content (one value byte, one header value, one timestamp
     * changed, as a writer bug or a corrupted object would) passes every offset check: only a deep audit, which compares
     * each record with Kafka's, finds it, naming the offsets and fields.
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"parquet", "jsonl"})
    void alteredContentIsFoundByTheDeepAuditAloneWithItsFields(String format) throws Exception {
        ArchiverConfig config = backfill("audit-altered-" + format, 2_000, Map.of("sink.format", format));
        ArchiveFile victim = TableArchiveFiles.of(config).list().committed().stream().filter(f -> f.partition() == 1).findFirst().orElseThrow();
        ArchiveFileReader reader = new ArchiveFileReader(PayloadFormats.of(config));
        List<io.archiver.record.ArchiveRecord> records = reader.readAll(victim.path());
        List<io.archiver.record.ArchiveRecord> withHeaders = records.stream().filter(r -> r.getHeaderKeys().length > 0 && r.getValue() != null
                && r.getHeaderValues()[0] != null).toList();
        io.archiver.record.ArchiveRecord value = withHeaders.get(0);
        io.archiver.record.ArchiveRecord header = withHeaders.get(2);
        io.archiver.record.ArchiveRecord timestamp = withHeaders.get(4);
        value.getValue()[3] ^= 0x01;
        header.getHeaderValues()[0][0] ^= 0x01;
        timestamp.setTimestamp(timestamp.getTimestamp() + 1);
        ArchiveDamage.rewrite(config, victim.path(), records);

        Cli.Result fast = Cli.run(config, "audit");
        assertThat(fast.code()).as(fast.out()).isZero();
        Cli.Result deep = Cli.run(config, "audit", "--deep");
        assertThat(deep.code()).as(deep.out()).isEqualTo(1);
        assertThat(deep.out()).contains("Content differs from Kafka, " + topic(config) + "-1: 3 archived records")
                .contains(value.getOffset() + " (value)").contains(header.getOffset() + " (headers)")
                .contains(timestamp.getOffset() + " (timestamp)")
                .contains("0 missing, 0 duplicated, 0 archived but not in Kafka, 3 with content differing from Kafka");
        Cli.Result json = Cli.run(config, "audit", "--deep", "--json");
        assertThat(json.out()).contains("\"contentMismatches\" : 3").contains("\"value\" : 1").contains("\"headers\" : 1")
                .contains("\"timestamp\" : 1");
    }

    /**
     * S3 lists page by page: a file committed while the archive is listed can be missed while a later commit's file is
     * seen. Emulated by a first listing without a middle file that is there again for the next one.
     */
    @Test
    void aFileCommittedWhileTheArchiveIsListedIsNotReportedMissing() throws Exception {
        ArchiverConfig config = backfill("audit-listed", 4_000, Map.of("sink.format", "jsonl", "sink.roll.max-part-size", "16kb"));
        ArchiveFile late = ArchiveDamage.middleFile(TableArchiveFiles.of(config).list().committed(), 1);
        AtomicInteger listings = new AtomicInteger();
        ArchiveAuditor auditor = new ArchiveAuditor(SharedStack.get().verifier(PayloadFormats.BYTES), new KafkaInspector(kafkaProps()),
                Duration.ofHours(1));

        AuditReport report = auditor.audit(missingOnFirstListing(config, late, listings), config.topics(), "g", false);
        assertThat(listings).as("listed again for the gap").hasValue(2);
        assertThat(report.isClean()).isTrue();
        assertThat(report.getMissing()).isZero();
        assertThat(report.getPartitions()).filteredOn(p -> p.getPartition() == 1).singleElement()
                .satisfies(p -> assertThat(p.getRecords()).isEqualTo(1_000));
    }

    /**
     * Dead letters are read after the archive is listed: one committed with the file before it, which the listing missed,
     * must not turn that file's records into a gap (the second look reads up to the dead letter).
     */
    @Test
    void aFileCommittedWhileTheArchiveIsListedBeforeALaterDeadLetterIsNotReportedMissing() throws Exception {
        SharedStack stack = SharedStack.get();
        String topic = SharedStack.uniqueName("audit-listed-dead");
        stack.kafka().createTopic(topic, 1);
        TestRecords.produce(stack.kafka().bootstrapServers(), topic, 1, 0, 1_000);
        try (KafkaProducer<byte[], byte[]> producer = TestRecords.producer(stack.kafka().bootstrapServers())) {
            producer.send(new ProducerRecord<>(topic, 0, null, "not json".getBytes(StandardCharsets.UTF_8))).get();
        }
        Map<String, String> settings = stack.jobSettings(topic, topic);
        settings.putAll(Map.of("mode", "batch", "sink.format", "jsonl", "sink.roll.max-part-size", "16kb", "record.value.format", "json",
                "errors.policy", "dead-letter"));
        ArchiverConfig config = ArchiverConfig.of(settings);
        JobLauncher.environment(config).executeAsync("listed-dead").getJobExecutionResult().get(2, TimeUnit.MINUTES);
        ArchiveFileReader reader = new ArchiveFileReader(PayloadFormats.of(config));
        ArchiveFile last = null;
        long lastFirst = -1;
        for (ArchiveFile f : TableArchiveFiles.of(config).list().committed()) {
            long first = reader.readAll(f.path()).get(0).getOffset();
            if (first > lastFirst) {
                last = f;
                lastFirst = first;
            }
        }
        ArchiveFile late = last;
        AtomicInteger listings = new AtomicInteger();
        ArchiveAuditor auditor = new ArchiveAuditor(SharedStack.get().verifier(PayloadFormats.of(config)), new KafkaInspector(kafkaProps()),
                Duration.ofHours(1));

        AuditReport report = auditor.audit(missingOnFirstListing(config, late, listings), config.deadLetterPath(), config.topics(), "g", false,
                line -> {});
        assertThat(listings).as("listed again for the gap").hasValue(2);
        assertThat(report.getMissing()).isZero();
        assertThat(report.getDeadLettered()).isEqualTo(1);
        assertThat(report.isClean()).isTrue();
    }

    @Test
    void orphanedUploadsOfACancelledJobAreFoundAndCleanedUp() throws Exception {
        SharedStack stack = SharedStack.get();
        String topic = SharedStack.uniqueName("audit-orphans");
        stack.kafka().createTopic(topic, 2);
        TestRecords.produce(stack.kafka().bootstrapServers(), topic, 2, 0, 2_000);
        Map<String, String> settings = stack.jobSettings(topic, topic);
        settings.put("checkpoint.interval", "1 h");
        settings.remove("fencing.lease-timeout");
        ArchiverConfig config = ArchiverConfig.of(settings);
        JobClient job = JobLauncher.environment(config).executeAsync("orphans");
        ArchiveCounter counter = new ArchiveCounter(config.sinkPath(), PayloadFormats.of(config));
        Await.until("uploads started", Duration.ofSeconds(60),
                () -> !stack.verifier(PayloadFormats.of(config)).verify(TableArchiveFiles.of(config)).incompleteUploads().isEmpty());
        job.cancel().get(1, TimeUnit.MINUTES);
        assertThat(counter.count()).as("nothing committed without a checkpoint").isZero();

        Cli.Result audit = Cli.run(config, "audit", "--orphan-age=PT0S");
        assertThat(audit.code()).as(audit.out()).isEqualTo(1);
        assertThat(audit.out()).containsPattern("Orphaned multipart uploads: [1-9]");
        Cli.Result dryRun = Cli.run(config, "cleanup", "--orphan-age=PT0S");
        assertThat(dryRun.out()).contains("Would abort").contains("Run again with --apply");
        Cli.Result apply = Cli.run(config, "cleanup", "--orphan-age=PT0S", "--apply");
        assertThat(apply.code()).as(apply.out()).isZero();
        assertThat(apply.out()).contains("Aborting");
        assertThat(stack.verifier(PayloadFormats.of(config)).verify(TableArchiveFiles.of(config)).incompleteUploads()).isEmpty();
    }

    @Test
    void cleanupSaysWhatTheBucketsLifecycleRulesDoAndAStoreWithoutThemRefusesTheRuleNamingTheSweep() {
        ArchiverConfig config = ArchiverConfig.of(SharedStack.get().jobSettings("t", SharedStack.uniqueName("audit-lifecycle")));
        Cli.Result dryRun = Cli.run(config, "cleanup", "--install-lifecycle-rule");
        assertThat(dryRun.code()).as(dryRun.out()).isZero();
        assertThat(dryRun.out())
                .contains("Lifecycle: the store does not say whether a rule aborts incomplete uploads under " + config.sinkPath() + " (NotImplemented")
                .contains("Would install a lifecycle rule aborting incomplete uploads under " + config.sinkPath() + " 1 day(s) after they start");
        Cli.Result apply = Cli.run(config, "cleanup", "--install-lifecycle-rule", "--apply");
        assertThat(apply.code()).as(apply.out()).isEqualTo(1);
        assertThat(apply.out()).contains("Could not install the lifecycle rule: the store answered NotImplemented")
                .contains("sink.orphaned-uploads.abort-after");
    }

    @Test
    void cleanupOfAnArchiveItCannotReachSaysWhyAndExitsTwo() {
        Map<String, String> settings = SharedStack.get().jobSettings("t", "t");
        settings.put("sink.path", "s3://" + SharedStack.uniqueName("no-such-bucket") + "/archive");
        Cli.Result cleanup = Cli.run(ArchiverConfig.of(settings), "cleanup", "--apply");
        assertThat(cleanup.code()).as(cleanup.out()).isEqualTo(2);
        assertThat(cleanup.out()).contains("Could not clean up: ").doesNotContain("\tat ");
    }

    @Test
    void uploadsOfACommitCutShortAreNotOrphansCleanupKeepsThemAndTheNextStartCompletesThem() throws Exception {
        try (FaultScenario s = FaultScenario.start("audit-cut", 8_000, 2_000, Map.of("parallelism", "1"))) {
            PositionProbe probe = new PositionProbe(s.config().sinkPath(), s.topic(), FaultScenario.PARTITIONS);
            s.awaitArchived(1_000);
            S3Faults faults = s.s3Faults();
            faults.haltCompletesAfter(0);
            Await.until("a commit cut short", Duration.ofMinutes(1), () -> !probe.uncommittedFiles().isEmpty(),
                    () -> "position records " + probe.records());
            s.cancel();
            faults.heal();

            Cli.Result audit = Cli.run(s.config(), "audit", "--orphan-age=PT0S");
            assertThat(audit.out()).containsPattern("Commits cut short \\(completed by the next start without state, not orphans\\): [1-9]");
            Cli.Result apply = Cli.run(s.config(), "cleanup", "--orphan-age=PT0S", "--apply");
            assertThat(apply.code()).as(apply.out()).isZero();
            assertThat(apply.out()).contains("Keeping s3://");

            s.restartWithoutState(Map.of());
            s.finish();
            assertThat(probe.uncommittedFiles()).isEmpty();
        }
    }

    // ------------------------------------------------------------------ helpers

    /**
     * The archive's files, whose first listing lacks {@code late} (moved aside while it lists), as a listing that pages past
     * a file committed meanwhile; later listings are whole. {@code listings} counts them.
     */
    private static ArchiveFiles missingOnFirstListing(ArchiverConfig config, ArchiveFile late, AtomicInteger listings) throws Exception {
        Path aside = new Path(new Path(config.sinkPath()).getParent(), "aside-" + late.path().getName());
        FileSystem fs = late.path().getFileSystem();
        ArchiveFiles listed = TableArchiveFiles.of(config);
        return new ArchiveFiles() {
            @Override
            public ArchiveRoot root() {
                return listed.root();
            }

            @Override
            public ArchiveListing list() throws IOException {
                if (listings.getAndIncrement() > 0) {
                    return listed.list();
                }
                assertThat(fs.rename(late.path(), aside)).isTrue();
                try {
                    return listed.list();
                } finally {
                    assertThat(fs.rename(aside, late.path())).isTrue();
                }
            }
        };
    }

    private static ArchiveAuditor auditor() {
        return new ArchiveAuditor(SharedStack.get().verifier(PayloadFormats.BYTES), new KafkaInspector(kafkaProps()), Duration.ofHours(1));
    }

    /** Records {@code first..first+count-1} with {@code keys} distinct keys, one partition. */
    private static void produceKeyed(String topic, int first, int count, int keys) {
        try (KafkaProducer<byte[], byte[]> producer = TestRecords.producer(SharedStack.get().kafka().bootstrapServers())) {
            for (int i = first; i < first + count; i++) {
                producer.send(new ProducerRecord<>(topic, 0, ("key-" + i % keys).getBytes(StandardCharsets.UTF_8),
                        ("value-" + i).getBytes(StandardCharsets.UTF_8)));
            }
        }
    }

    /** True when a file whose footer says it is dense holds an offset outside {@code offsets}. */
    private static boolean denseFileWithAnOffsetNotIn(ArchiverConfig config, java.util.Set<Long> offsets) throws Exception {
        ArchiveFileReader reader = new ArchiveFileReader(PayloadFormats.BYTES);
        for (ArchiveFile f : TableArchiveFiles.of(config).list().committed()) {
            long[] stats = reader.offsetStatistics(f.path());
            if (stats != null && stats[1] - stats[0] + 1 == stats[2]
                    && reader.readAll(f.path()).stream().anyMatch(r -> !offsets.contains(r.getOffset()))) {
                return true;
            }
        }
        return false;
    }

    private static ArchiverConfig backfill(String name, int records, Map<String, String> overrides) throws Exception {
        SharedStack stack = SharedStack.get();
        String topic = SharedStack.uniqueName(name);
        stack.kafka().createTopic(topic, 4);
        TestRecords.produce(stack.kafka().bootstrapServers(), topic, 4, 0, records);
        Map<String, String> settings = stack.jobSettings(topic, topic);
        settings.put("mode", "batch");
        settings.putAll(overrides);
        ArchiverConfig config = ArchiverConfig.of(settings);
        JobLauncher.environment(config).executeAsync(name).getJobExecutionResult().get(2, TimeUnit.MINUTES);
        return config;
    }

    private static String topic(ArchiverConfig config) {
        return config.topics().get(0);
    }

    private static Properties kafkaProps() {
        Properties p = new Properties();
        p.setProperty("bootstrap.servers", SharedStack.get().kafka().bootstrapServers());
        return p;
    }

    private static long copiedRecords(ArchiveFile file) throws Exception {
        return new ArchiveFileReader(PayloadFormats.BYTES).count(file.path());
    }
}
