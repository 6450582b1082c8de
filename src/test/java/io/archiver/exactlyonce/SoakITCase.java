package io.archiver.exactlyonce;

import io.archiver.table.TableArchiveFiles;
import io.archiver.archive.ArchiveFiles;
import io.archiver.archive.VerificationReport;
import io.archiver.config.SinkOptions;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;
import io.archiver.testutils.ArchiveAssertions;
import io.archiver.testutils.Await;
import io.archiver.testutils.ExpectedOffsets;
import io.archiver.testutils.FaultScenario;
import io.archiver.testutils.KillsTaskManagers;
import io.archiver.testutils.LayoutScenarios;
import io.archiver.testutils.S3Faults;
import io.archiver.testutils.SharedStack;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * A randomized, seeded schedule of every fault kind while records keep arriving, then a record-by-record
 * verdict and a summary (printed and written to target/soak-summary-&lt;layout&gt;.md) for a job of each layout, both under
 * the one schedule: a short run in the test command, larger with {@code -Dsoak.records=N -Dsoak.faults=N}. The hour-long soak of every fault kind, on
 * three brokers, is the benchmark suite's {@code ClusterSoakBenchmark}.
 */
@Isolated
@KillsTaskManagers
class SoakITCase {

    enum Fault { TASK_MANAGERS_KILLED, CANCEL_AND_RESTORE, SAVEPOINT_AND_RESCALE, S3_ERRORS, S3_RESTART, KAFKA_RESTART, COMMIT_ANSWER_LOST }

    private final S3Faults s3Faults = SharedStack.get().s3Faults();

    @Test
    void randomizedFaultScheduleArchivesEveryRecordExactlyOnce() throws Exception {
        long seed = Long.getLong("soak.seed", System.nanoTime());
        int records = Integer.getInteger("soak.records", 30_000);
        int faults = Integer.getInteger("soak.faults", 5);
        int rate = Integer.getInteger("soak.rate", 4_000);
        System.out.println("Soak seed " + seed + " (rerun with -Dsoak.seed=" + seed + ")");
        Random random = new Random(seed);
        Instant started = Instant.now();
        Map<Fault, Integer> injected = new EnumMap<>(Fault.class);
        List<String> schedule = new ArrayList<>();
        int parallelism = 2;
        try (LayoutScenarios both = LayoutScenarios.start(layout -> FaultScenario.start("soak-" + layout.configName(), records, rate,
                Map.of("parallelism", "2", "checkpoint.interval", "2 s", "fencing.lease-timeout", "5 s", "sink.time-partitioning", "hour",
                        "sink.layout", layout.configName())))) {
            long previous = 1;
            for (int i = 0; i < faults; i++) {
                long target = (long) records * (i + 1) / (faults + 1) - random.nextInt(Math.max(1, records / (faults * 4)));
                for (FaultScenario s : both) {
                    s.awaitProduced(target);
                }
                both.awaitArchived(previous); // each job made progress since the last fault
                previous = both.stream().mapToLong(FaultScenario::committedSoFar).min().orElseThrow(); // aborted records never reach an archive
                Fault fault = Fault.values()[random.nextInt(Fault.values().length)];
                schedule.add(fault + " at " + target + " produced");
                injected.merge(fault, 1, Integer::sum);
                switch (fault) {
                    case TASK_MANAGERS_KILLED:
                        SharedStack.get().killAndReplaceTaskManagers();
                        break;
                    case CANCEL_AND_RESTORE:
                        for (FaultScenario s : both) {
                            s.cancel();
                            s.resume(s.latestRetainedCheckpoint(), parallelism);
                        }
                        break;
                    case SAVEPOINT_AND_RESCALE:
                        parallelism = parallelism == 1 ? 2 : 1;
                        for (FaultScenario s : both) {
                            s.resume(s.stopWithSavepoint(), parallelism);
                        }
                        break;
                    case S3_ERRORS:
                        s3Faults.outage(random.nextBoolean() ? 500 : 503, Duration.ofSeconds(2 + random.nextInt(3)));
                        Await.until("S3 outage over", Duration.ofSeconds(30), () -> !s3Faults.inOutage());
                        break;
                    case S3_RESTART:
                        SharedStack.get().s3().stop();
                        Thread.sleep(1_000 + random.nextInt(3_000)); // the fault itself: the server is down
                        SharedStack.get().s3().startAgain();
                        break;
                    case KAFKA_RESTART:
                        SharedStack.get().kafka().restartBroker();
                        break;
                    default:
                        s3Faults.loseNextCompleteAnswers(1 + random.nextInt(3));
                }
            }
            for (FaultScenario s : both) {
                verify(s, seed, faults, injected, schedule, started);
            }
        }
    }

    /** The summary of one layout's archive (printed and written to target/soak-summary-&lt;layout&gt;.md) and its verdict. */
    private static void verify(FaultScenario s, long seed, int faults, Map<Fault, Integer> injected, List<String> schedule, Instant started)
            throws Exception {
        String layout = s.config().get(SinkOptions.SINK_LAYOUT).configName();
        List<ArchiveRecord> inKafka = s.drain();
        PayloadFormats formats = PayloadFormats.of(s.config());
        VerificationReport report = SharedStack.get().verifier(formats).verify(TableArchiveFiles.of(s.config()));
        Map<String, List<Long>> expected = new TreeMap<>();
        for (ArchiveRecord r : inKafka) {
            expected.computeIfAbsent(VerificationReport.id(r.getTopic(), r.getPartition()), k -> new ArrayList<>()).add(r.getOffset());
        }
        ExpectedOffsets comparison = ExpectedOffsets.compare(report, expected);
        String summary = String.join("\n",
                "# Soak run " + Instant.now(),
                "",
                "| figure | value |",
                "|---|---|",
                "| seed | " + seed + " |",
                "| layout | " + layout + " |",
                "| jobs started (runs) | " + s.jobsStarted() + " |",
                "| faults injected | " + faults + " " + injected + " |",
                "| records produced (in Kafka, read_committed) | " + inKafka.size() + " |",
                "| records of aborted transactions (in Kafka's log, never to be archived) | " + s.abortedSoFar() + " |",
                "| records archived | " + report.records() + " in " + report.files() + " files |",
                "| lost | " + comparison.missingCount() + " |",
                "| duplicated | " + report.duplicatedOffsets() + " |",
                "| archived but never produced | " + comparison.unexpectedCount() + " |",
                "| orphaned uploads (incomplete multipart uploads left by cancelled jobs) | " + report.incompleteUploads().size() + " |",
                "| leftover temporary objects | " + report.uncommittedFiles().size() + " |",
                "| wall time | " + Duration.between(started, Instant.now()).toSeconds() + " s |",
                "",
                "Schedule: " + schedule,
                "");
        System.out.println(summary);
        Files.writeString(Path.of("target", "soak-summary-" + layout + ".md"), summary);
        ArchiveAssertions.assertExactlyOnce(s.config().sinkPath(), formats, inKafka);
    }
}
