package io.archiver.table;

import io.archiver.archive.ArchiveFile;
import io.archiver.archive.ArchiveFiles;
import io.archiver.archive.ArchiveListing;
import io.archiver.archive.ArchiveRoot;
import io.archiver.config.ArchiverConfig;
import io.archiver.config.SinkLayout;
import io.archiver.config.TableOptions;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;
import io.archiver.testutils.ArchiveAssertions;
import io.archiver.testutils.ArchiveDamage;
import io.archiver.testutils.Await;
import io.archiver.testutils.Cli;
import io.archiver.testutils.FaultScenario;
import io.archiver.testutils.LongRunning;
import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TableContents;

import org.apache.flink.core.fs.Path;
import org.apache.iceberg.Snapshot;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Compaction and expiry of the archive's tables keep every reader exact: two compactions planned from one snapshot race
 * (the second to commit fails and deletes what it wrote), then `table compact` runs, while the job archives into the
 * very folders they compact; readers through the table (the verifier, audit) then read each record once although
 * the folders hold the replaced files too; a start without state's catch-up and a replayed append pass the replaced
 * files over; `table expire` deletes the replaced files and a cut-short compaction's output, keeps the offsets the
 * table holds, and leaves folders that hold each record once; a file the table lists lost from the archive is
 * repaired (its records archived anew, the table's files swapped in one snapshot). Both layouts, against the
 * read_committed truth, read by Iceberg's reader and DuckDB.
 */
@ExtendWith(SharedStack.class)
@LongRunning(seconds = 66)
class TableMaintenanceITCase {

    private static final Pattern COMPACTED = Pattern.compile("compacted (\\d+) files \\((\\d+) records");

    @TempDir
    static java.nio.file.Path catalogs;

    @ParameterizedTest
    @EnumSource(SinkLayout.class)
    void compactionWhileTheJobArchivesAndExpiryAfterKeepEveryReaderExact(SinkLayout layout) throws Exception {
        try (FaultScenario s = FaultScenario.start("table-compact", 8_000, 1_000, settings("table-compact-" + layout, layout))) {
            ArchiverConfig config = s.config();
            s.awaitArchived(1_000);
            keepMetadataFiles(config, s.topic(), 2);
            s.awaitArchived(4_000);
            Await.until("the table holds what was archived", Duration.ofMinutes(1),
                    () -> TableContents.records(config, s.topic()) >= 4_000, () -> "table " + TableContents.records(config, s.topic()));
            int compacted = secondOfTwoRacingCompactionsFailsAndDeletesWhatItWrote(config, s.topic());
            s.awaitArchived(6_500);
            compacted += compacted(Cli.run(config, "table", "compact"));
            assertThat(compacted).as("files replaced by the compactions").isGreaterThan(4);

            List<ArchiveRecord> truth = TableContents.drainIntoTable(s);
            PayloadFormats formats = PayloadFormats.of(config);
            ArchiveFiles folders = ArchiveFiles.listed(ArchiveRoot.of(config));
            assertThat(ArchiveAssertions.archived(folders, formats).size()).as("records in the folders, the replaced files' too")
                    .isGreaterThan(truth.size());
            ArchiveAssertions.assertExactlyOnce(TableArchiveFiles.of(config), formats, truth);
            TableContents.assertEqualsTruth(config, s.topic(), truth);
            passesReplacedFilesOver(config, s.topic(), folders);

            String abandoned = abandonedCompaction(config, folders);
            Cli.Result audit = Cli.run(config, "audit");
            assertThat(audit.out()).as("audit before the expiry").contains("Verdict: CLEAN")
                    .containsPattern("[1-9]\\d* files replaced by a compaction and 1 outputs of a compaction cut short");

            Map<Integer, Long> offsets = positions(config, s.topic());
            Cli.Result expire = Cli.run(config, "table", "expire", "-Dtable.expire.older-than=0 s", "-Dtable.expire.retain-last=1");
            assertThat(expire.code()).as(expire.out()).isZero();
            assertThat(expire.out()).containsPattern("expired [1-9]\\d* snapshots, [1-9]\\d* data files only they referenced, 1 outputs of cut-short compactions, 0 orphaned");
            assertThat(positions(config, s.topic())).as("offsets the table holds after the expiry").isEqualTo(offsets);
            assertThat(new Path(abandoned).getFileSystem().exists(new Path(abandoned))).as("the cut-short compaction's output").isFalse();
            ArchiveAssertions.assertExactlyOnce(config.sinkPath(), formats, truth);
            TableContents.assertEqualsTruth(config, s.topic(), truth);
            assertThat(Cli.run(config, "audit").out()).as("audit after the expiry").contains("Verdict: CLEAN");

            repairsAFileLostBehindTheTablesBack(config, s.topic(), truth);
            assertMetadataFilesKeptToTheNewest(config, s.topic(), 2);
        }
    }

    /**
     * Two compactions planned from the same snapshot: the first to commit wins; the second fails loudly, its table
     * unchanged, and deletes the files it wrote. Returns the files the first replaced.
     */
    private static int secondOfTwoRacingCompactionsFailsAndDeletesWhatItWrote(ArchiverConfig config, String topic) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (ArchiveCatalog catalog = ArchiveCatalog.open(TableSettings.of(config).orElseThrow())) {
            TableCompaction.Settings settings = new TableCompaction.Settings(
                    config.get(TableOptions.TABLE_COMPACT_TARGET_FILE_SIZE).getBytes(), config.get(TableOptions.TABLE_COMPACT_CLOSED_AFTER));
            // files to compact: closed folders' files but each partition's last (a job slowed down commits fewer, larger ones)
            Await.until("two files to compact in a folder", Duration.ofMinutes(1), () -> TableCompaction.plan(catalog.table(topic),
                    TableCompaction.namedByPositions(ArchiveRoot.of(config)), settings, Instant.now(), pool).result().filesReplaced() > 1);
            ArchiveTable table = catalog.table(topic);
            Set<String> pinned = TableCompaction.namedByPositions(ArchiveRoot.of(config));
            TableCompaction.Plan first = TableCompaction.plan(table, pinned, settings, Instant.now(), pool);
            TableCompaction.Plan second = TableCompaction.plan(table, pinned, settings, Instant.now(), pool);
            // the job commits meanwhile: the second plan may take more files, never fewer
            assertThat(first.result().filesReplaced()).as("files the first plan replaces").isGreaterThan(1)
                    .isLessThanOrEqualTo(second.result().filesReplaced());

            List<Long> before = compactions(table);
            Set<String> outputsBefore = maintenanceOutputs(config);
            TableCompaction.Result won = first.apply(pool);
            assertThatThrownBy(() -> second.apply(pool)).isInstanceOf(IOException.class)
                    .hasMessageContaining("Compaction of table " + table.name() + " not committed")
                    .hasMessageContaining("the files written are deleted");
            List<Long> committed = new ArrayList<>(before);
            committed.add(won.snapshot());
            assertThat(compactions(table)).as("the compactions' snapshots: the winner's added").isEqualTo(committed);
            Set<String> outputs = new HashSet<>(maintenanceOutputs(config));
            outputs.removeAll(outputsBefore);
            assertThat(outputs).as("new compaction outputs in the folders: the winner's only (%s)", won).hasSize(won.filesWritten());
            return won.filesReplaced();
        } finally {
            pool.shutdownNow();
        }
    }

    /** Lowers the number of metadata files the table keeps (the archiver's tables keep 100). */
    private static void keepMetadataFiles(ArchiverConfig config, String topic, int newest) throws Exception {
        try (ArchiveCatalog catalog = ArchiveCatalog.open(TableSettings.of(config).orElseThrow())) {
            ArchiveTable table = catalog.table(topic);
            assertThat(table.table().properties()).as("the table's properties").containsAllEntriesOf(ArchiveCatalog.METADATA_RETENTION);
            table.table().updateProperties().set(org.apache.iceberg.TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, Integer.toString(newest)).commit();
        }
    }

    /**
     * The table's metadata folder holds the current metadata file and the {@code newest} before it, although the table
     * committed many more; once they are old enough, an expiry deletes the metadata files of commits that lost a race.
     */
    private static void assertMetadataFilesKeptToTheNewest(ArchiverConfig config, String topic, int newest) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (ArchiveCatalog catalog = ArchiveCatalog.open(TableSettings.of(config).orElseThrow())) {
            ArchiveTable table = catalog.table(topic);
            assertThat(table.table().currentSnapshot().sequenceNumber()).as("the table's commits (a metadata file each)")
                    .isGreaterThan(newest + 2L);
            Instant later = Instant.now().plus(TableExpiry.ORPHAN_MIN_AGE).plusSeconds(60);
            ArchiveListing folders = ArchiveFiles.listed(ArchiveRoot.of(config)).list();
            TableExpiry.Result expired = TableExpiry.expire(table, Duration.ZERO, 1, later, folders, false, pool);
            Path metadata = new Path(table.table().location() + "/metadata");
            long files = Arrays.stream(metadata.getFileSystem().listStatus(metadata))
                    .filter(f -> f.getPath().getName().endsWith(".metadata.json")).count();
            assertThat(files).as("metadata files in %s after %s", metadata, expired).isLessThanOrEqualTo(newest + 1L);
            assertThat(TableExpiry.expire(table, Duration.ZERO, 1, later, folders, true, pool).orphanedMetadataDeleted())
                    .as("orphaned metadata files left").isZero();
        } finally {
            pool.shutdownNow();
        }
    }

    /** The compactions' and repairs' outputs the archive's folders hold. */
    private static Set<String> maintenanceOutputs(ArchiverConfig config) throws Exception {
        return ArchiveFiles.listed(ArchiveRoot.of(config)).list().committed().stream()
                .map(f -> f.path().toString()).filter(TableState::isMaintenanceOutput).collect(Collectors.toSet());
    }

    /** The ids of the compactions' snapshots of {@code table}, oldest first. */
    private static List<Long> compactions(ArchiveTable table) {
        table.table().refresh();
        return StreamSupport.stream(table.table().snapshots().spliterator(), false)
                .filter(snap -> TableCompaction.JOB.equals(snap.summary().get(TablePositions.JOB)))
                .map(Snapshot::snapshotId).toList();
    }

    /** A file the table lists deleted from the archive: repair archives its records anew and the table swaps the files. */
    private static void repairsAFileLostBehindTheTablesBack(ArchiverConfig config, String topic, List<ArchiveRecord> truth) throws Exception {
        Path lost = ArchiveDamage.middleFile(TableArchiveFiles.of(config).list().committed(), 1).path();
        lost.getFileSystem().delete(lost, false);
        assertThat(Cli.run(config, "audit").out()).as("audit after a file was lost").contains("lists 1 files the archive does not hold")
                .doesNotContain("Verdict: CLEAN");

        Cli.Result repair = Cli.run(config, "repair", "--apply");
        assertThat(repair.code()).as(repair.out()).isZero();
        assertThat(repair.out()).containsPattern("Table kafka\\.\\w+: [1-9]\\d* files the repair wrote added, 0 it rewrote and 1 gone");
        TableContents.assertEqualsTruth(config, topic, truth);
        ArchiveAssertions.assertExactlyOnce(config.sinkPath(), PayloadFormats.of(config), truth);
    }

    /** The files the compactions replaced, from its output ({@code compacted N files (M records ...}) of every table. */
    private static int compacted(Cli.Result run) {
        assertThat(run.code()).as(run.out()).isZero();
        Matcher m = COMPACTED.matcher(run.out());
        int files = 0;
        while (m.find()) {
            files += Integer.parseInt(m.group(1));
        }
        return files;
    }

    /** A start without state's catch-up appends nothing, and a replayed append of a replaced file is passed over. */
    private static void passesReplacedFilesOver(ArchiverConfig config, String topic, ArchiveFiles folders) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (ArchiveCatalog catalog = ArchiveCatalog.open(TableSettings.of(config).orElseThrow())) {
            assertThat(TableSync.catchUp(catalog, TableArchiveFiles.of(config), pool)).as("files a catch-up appends").isZero();
            ArchiveTable table = catalog.table(topic);
            TableState state = TableState.current(table.table(), pool);
            ArchiveFile replaced = folders.list().committed().stream().filter(f -> !state.lists(f.path().toString())).findFirst().orElseThrow();
            assertThat(state.replaced(replaced.path().toString())).isTrue();
            TableFile replay = TableFile.fromFooter(replaced.path(), replaced.size());
            assertThat(table.append(List.of(replay), Map.of(), pool).files()).as("files of a replayed append").isZero();
        } finally {
            pool.shutdownNow();
        }
    }

    /** A copy of a compaction's output under another compaction's name: an output whose commit never happened. */
    private static String abandonedCompaction(ArchiverConfig config, ArchiveFiles folders) throws Exception {
        ArchiveFile output = folders.list().committed().stream()
                .filter(f -> TableState.isMaintenanceOutput(f.path().toString())).findFirst().orElseThrow();
        Path copy = new Path(output.path().getParent(), TableState.COMPACTED_PREFIX + "never-committed.parquet");
        ArchiveDamage.copy(output.path(), copy);
        return copy.toString();
    }

    private static Map<Integer, Long> positions(ArchiverConfig config, String topic) throws Exception {
        try (ArchiveCatalog catalog = ArchiveCatalog.open(TableSettings.of(config).orElseThrow())) {
            return Map.copyOf(catalog.table(topic).positions().all());
        }
    }

    private static Map<String, String> settings(String catalog, SinkLayout layout) {
        return TableContents.jobSettings(catalogs.resolve(catalog + ".db"), layout);
    }
}
