package io.archiver.repair;

import io.archiver.table.TableArchiveFiles;
import io.archiver.archive.ArchiveFile;
import io.archiver.archive.ArchiveFiles;
import io.archiver.config.ArchiverConfig;
import io.archiver.config.SinkLayout;
import io.archiver.job.JobLauncher;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;
import io.archiver.testutils.ArchiveDamage;
import io.archiver.testutils.Cli;
import io.archiver.testutils.FaultScenario;
import io.archiver.testutils.KafkaTopicReader;
import io.archiver.testutils.LongRunning;
import io.archiver.testutils.SharedMiniCluster;
import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TestRecords;

import org.apache.flink.core.fs.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.archiver.testutils.ArchiveAssertions.assertExactlyOnce;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code repair} makes a damaged archive equal the committed log again, next to a running job or alone, in both
 * layouts (a file of the per-topic layout is rewritten once for all the partitions it holds).
 */
@SharedMiniCluster
@LongRunning(seconds = 40)
class RepairITCase {

    @ParameterizedTest
    @EnumSource(SinkLayout.class)
    void deletedAndCopiedFilesAreRepairedWhileTheJobKeepsArchiving(SinkLayout layout) throws Exception {
        // per-partition: small JSON Lines files; per-topic: Parquet files shared by the partitions
        Map<String, String> settings = layout == SinkLayout.PER_PARTITION
                ? Map.of("sink.format", "jsonl", "sink.roll.max-part-size", "16kb", "parallelism", "2")
                : Map.of("sink.layout", layout.configName(), "parallelism", "2");
        try (FaultScenario s = FaultScenario.start("repair-live", 16_000, 2_000, settings)) {
            s.awaitArchived(6_000);
            List<ArchiveFile> files = TableArchiveFiles.of(s.config()).list().committed();
            ArchiveFile deleted = ArchiveDamage.middleFile(files, 1);
            ArchiveFile copied = ArchiveDamage.middleFile(files, 2);
            ArchiveDamage.copy(copied.path(), new Path(copied.path().getParent(), "part-copy-" + copied.path().getName()));
            deleted.path().getFileSystem().delete(deleted.path(), false);

            Cli.Result audit = Cli.run(s.config(), "audit");
            assertThat(audit.code()).as(audit.out()).isEqualTo(1);
            Cli.Result dryRun = Cli.run(s.config(), "repair");
            assertThat(dryRun.out()).contains("The archive's lease was renewed lately by ").contains("Archive from Kafka, " + s.topic() + "-1: the missing records at ")
                    .contains("Drop from ").contains("Run again with --apply");
            Cli.Result repair = Cli.run(s.config(), "repair", "--apply");
            System.out.println(repair.out());
            assertThat(repair.code()).as(repair.out()).isZero();
            assertThat(repair.out()).contains("A job writes this archive: repairing alongside it").contains("Audit after the repair: CLEAN");

            s.finish();
        }
    }

    @ParameterizedTest
    @EnumSource(SinkLayout.class)
    void archiveOfAbortedRecordsIsRepairedToTheCommittedLogAndResumesWithoutState(SinkLayout layout) throws Exception {
        SharedStack stack = SharedStack.get();
        String topic = SharedStack.uniqueName("repair-aborted");
        stack.kafka().createTopic(topic, 2);
        TestRecords.produceTransactions(stack.kafka().bootstrapServers(), topic, 2, 0, 4_000, 500, 2);
        Map<String, String> settings = stack.jobSettings(topic, topic);
        settings.put("mode", "batch");
        settings.put("kafka.properties.isolation.level", "read_uncommitted");
        settings.put("sink.layout", layout.configName());
        ArchiverConfig uncommitted = ArchiverConfig.of(settings);
        JobLauncher.environment(uncommitted).executeAsync("uncommitted").getJobExecutionResult().get(2, TimeUnit.MINUTES);
        ArchiverConfig committed = uncommitted.with(Map.of("kafka.properties.isolation.level", "read_committed"));

        Cli.Result repair = Cli.run(committed, "repair", "--apply");
        System.out.println(repair.out());
        assertThat(repair.code()).as(repair.out()).isZero();
        assertThat(repair.out()).contains("No job writes this archive").contains("Audit after the repair: CLEAN");
        assertExactlyOnce(committed.sinkPath(), PayloadFormats.of(committed), KafkaTopicReader.readAll(stack.kafka().bootstrapServers(), topic));

        // a later start without state resumes after the repaired files, not before them
        TestRecords.produceTransactions(stack.kafka().bootstrapServers(), topic, 2, 4_000, 1_000, 250, 2);
        JobLauncher.environment(committed).executeAsync("after-repair").getJobExecutionResult().get(2, TimeUnit.MINUTES);
        List<ArchiveRecord> truth = KafkaTopicReader.readAll(stack.kafka().bootstrapServers(), topic);
        assertExactlyOnce(committed.sinkPath(), PayloadFormats.of(committed), truth);
    }
}
