package io.archiver.table;

import io.archiver.capture.TopicIdentities;
import io.archiver.config.SinkLayout;
import io.archiver.local.EmbeddedKafka;
import io.archiver.record.ArchiveRecord;
import io.archiver.sink.files.FileStats;
import io.archiver.record.PayloadFormats;
import io.archiver.testutils.ArchiveAssertions;
import io.archiver.testutils.Await;
import io.archiver.testutils.Cli;
import io.archiver.testutils.FaultScenario;
import io.archiver.testutils.S3Faults;
import io.archiver.testutils.LongRunning;
import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TableContents;
import io.archiver.testutils.TestRecords;
import io.archiver.testutils.KillsTaskManagers;

import org.apache.kafka.clients.admin.Admin;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The archive as an Iceberg table (a JDBC catalog on SQLite, the tables' metadata in S3 beside the archive): through
 * TaskManager kills, an outage of the tables' store longer than many checkpoints, the catalog taking no commit until the job
 * failed on it twice, a start without state after files
 * were committed that no snapshot holds, and a savepoint resumed under a new job id, the topic's table ends equal to
 * what a read_committed consumer reads, record by record, read by Iceberg's own reader and by DuckDB, and lists
 * exactly the archive's files; so does a table enabled on an archive resumed from a savepoint. A topic deleted and created again (its offsets from 0 again) is refused at the start,
 * with or without state, never skipped as already archived.
 */
@KillsTaskManagers
@LongRunning(seconds = 67)
class IcebergTableITCase {

    private static final Duration WAIT = Duration.ofMinutes(2);

    @TempDir
    static Path catalogs;

    @ParameterizedTest
    @EnumSource(SinkLayout.class)
    void theTableEqualsTheReadCommittedTruthThroughTaskManagerKillsAndOutagesOfItsStoreAndCatalog(SinkLayout layout) throws Exception {
        try (FaultScenario s = FaultScenario.start("table-faults", 14_000, 1_500, settings("table-faults-" + layout, layout))) {
            s.awaitArchived(2_500);
            SharedStack.get().killAndReplaceTaskManagers();
            s.awaitArchived(5_000);
            storeDownForAWhile(s.s3Faults());
            s.awaitArchived(8_000);
            catalogLockedForAWhile(s, catalogs.resolve("table-faults-" + layout + ".db"));
            SharedStack.get().killAndReplaceTaskManagers();
            List<ArchiveRecord> truth = TableContents.drainWithTable(s);
            TableContents.assertEqualsTruth(s.config(), s.topic(), truth);
        }
    }

    @Test
    void aStartWithoutStateAppendsTheFilesNoSnapshotHoldsAndASavepointResumedUnderANewJobDoublesNothing() throws Exception {
        try (FaultScenario s = FaultScenario.start("table-stateless", 12_000, 1_000, settings("table-stateless", SinkLayout.PER_PARTITION))) {
            s.awaitArchived(2_500);
            // files keep committing while no snapshot can: then the job is gone, state and all
            s.s3Faults().refuseTableWrites();
            Await.until("a checkpoint's files committed that the table does not hold", WAIT,
                    () -> s.s3Faults().injectedFaults() >= 3);
            s.cancel();
            s.s3Faults().heal();
            assertThat(TableContents.records(s.config(), s.topic())).as("records of the table behind the archive's")
                    .isLessThan(ArchiveAssertions.archivedCount(s.config().sinkPath(), PayloadFormats.of(s.config())));
            assertThat(Cli.run(s.config(), "audit").out()).as("audit of the archive whose table lags")
                    .containsPattern("Iceberg table kafka\\.\\w+: snapshot \\d+ lists \\d+ files, [1-9]\\d* committed after its last snapshot");

            s.restartWithoutState(Map.of());
            s.awaitArchived(5_000);
            s.resume(s.stopWithSavepoint(), 3);
            List<ArchiveRecord> truth = TableContents.drainWithTable(s);
            TableContents.assertEqualsTruth(s.config(), s.topic(), truth);
            assertThat(TableContents.appendingJobs(s.config(), s.topic())).as("jobs whose snapshots the table holds")
                    .contains("catch-up").hasSizeGreaterThanOrEqualTo(3);

            assertThat(Cli.run(s.config(), "audit").out()).as("audit of the archive and its table at the end")
                    .contains(", 0 committed after its last snapshot").contains("Verdict: CLEAN");

            refusesFilesOfAPartitionWhoseOffsetsWentBack(s);
        }
    }

    @Test
    void tablesEnabledOnAnArchiveResumedFromASavepointHoldItsFilesFromTheFirstOffset() throws Exception {
        Map<String, String> withTable = settings("table-enabled", SinkLayout.PER_TOPIC);
        Map<String, String> without = new java.util.HashMap<>(withTable);
        without.keySet().removeIf(k -> k.startsWith("table."));
        try (FaultScenario s = FaultScenario.start("table-enabled", 6_000, 1_500, without)) {
            s.awaitArchived(2_000);
            String savepoint = s.stopWithSavepoint();
            Map<String, String> changes = new java.util.HashMap<>(withTable);
            changes.keySet().removeIf(k -> !k.startsWith("table."));
            s.resume(savepoint, changes);
            io.archiver.config.ArchiverConfig tables = s.config().with(changes);
            List<ArchiveRecord> truth = TableContents.drainWithTable(s, tables);
            TableContents.assertEqualsTruth(tables, s.topic(), truth);
            assertThat(TableContents.appendingJobs(tables, s.topic())).as("jobs whose snapshots the table holds").contains("catch-up");
        }
    }

    @Test
    void aTopicDeletedAndCreatedAgainIsRefusedAtTheStartNotSkippedAsArchived() throws Exception {
        try (FaultScenario s = FaultScenario.start("table-recreated", 4_000, 4_000, settings("table-recreated", SinkLayout.PER_PARTITION))) {
            s.awaitProducerDone();
            Await.until("the table holds every committed record", WAIT,
                    () -> TableContents.records(s.config(), s.topic()) >= s.committedSoFar());
            s.cancel();
            String checkpoint = s.latestRetainedCheckpoint();
            long inTable = TableContents.records(s.config(), s.topic());

            EmbeddedKafka kafka = SharedStack.get().kafka();
            try (Admin admin = kafka.admin()) {
                admin.deleteTopics(List.of(s.topic())).all().get();
                Await.until("topic " + s.topic() + " deleted", WAIT, () -> !admin.listTopics().names().get().contains(s.topic()));
            }
            kafka.createTopic(s.topic(), FaultScenario.PARTITIONS);
            TestRecords.produce(kafka.bootstrapServers(), s.topic(), FaultScenario.PARTITIONS, 0, 200);

            for (ThrowingCallable start : List.<ThrowingCallable>of(() -> s.restartWithoutState(Map.of()), () -> s.resume(checkpoint, 2))) {
                assertThatThrownBy(start).isInstanceOf(TopicIdentities.TopicRecreatedException.class)
                        .hasMessageContaining("deleted and created again")
                        .hasMessageContaining("Archive it to a new sink.path");
            }
            assertThat(TableContents.records(s.config(), s.topic())).as("records of the table").isEqualTo(inTable);
        }
    }

    /** A file below what the table holds of its partition that the table does not list: refused, never skipped. */
    private static void refusesFilesOfAPartitionWhoseOffsetsWentBack(FaultScenario s) throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (ArchiveCatalog catalog = ArchiveCatalog.open(TableSettings.of(s.config()).orElseThrow())) {
            ArchiveTable table = catalog.table(s.topic());
            String path = s.config().sinkPath() + "/topic=" + s.topic() + "/partition=0/date=2026-01-01/part-of-a-recreated-topic.parquet";
            TableFile recreated = new TableFile(path, 1_000, List.of(new FileStats(s.topic(), 0, 0, 9, 10)));
            long before = table.positions().next(0).orElseThrow();
            assertThatThrownBy(() -> table.append(List.of(recreated), Map.of(), pool))
                    .hasMessageContaining("offsets went back")
                    .hasMessageContaining(path);
            assertThat(table.positions().next(0)).contains(before);
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * The catalog takes no commit (its database locked by another writer, as a catalog down would answer) until the job
     * has failed on it twice: its table commits fail, the job restarts from its last checkpoint, again and again. Records
     * produced once it is locked make sure there is a commit to fail (the scenario's producer may be done by then).
     */
    private static void catalogLockedForAWhile(FaultScenario s, Path catalog) throws Exception {
        try (java.sql.Connection lock = java.sql.DriverManager.getConnection("jdbc:sqlite:" + catalog);
                java.sql.Statement st = lock.createStatement()) {
            st.execute("BEGIN IMMEDIATE");
            long locked = System.currentTimeMillis();
            TestRecords.produce(SharedStack.get().kafka().bootstrapServers(), s.topic(), FaultScenario.PARTITIONS, 1_000_000, 400);
            java.util.Set<Long> failures = new java.util.HashSet<>();
            Await.until("the job failing twice on the locked catalog", WAIT, () -> {
                s.lastFailure().filter(f -> f.timestamp() > locked && f.cause().contains("SQLITE_BUSY")).ifPresent(f -> failures.add(f.timestamp()));
                return failures.size() >= 2;
            });
            st.execute("ROLLBACK");
        }
    }

    /** The tables' store refuses every write until the job has failed its table commits a few times. */
    private static void storeDownForAWhile(S3Faults faults) throws Exception {
        int before = faults.injectedFaults();
        faults.refuseTableWrites();
        Await.until("table commits refused", WAIT, () -> faults.injectedFaults() >= before + 3);
        faults.heal();
    }

    private static Map<String, String> settings(String catalog, SinkLayout layout) {
        return TableContents.jobSettings(catalogs.resolve(catalog + ".db"), layout);
    }
}
