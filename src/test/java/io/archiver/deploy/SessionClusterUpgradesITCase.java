package io.archiver.deploy;

import io.archiver.local.SessionCluster;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;
import io.archiver.testutils.ArchiveAssertions;
import io.archiver.testutils.ArchiveCounter;
import io.archiver.testutils.Await;
import io.archiver.testutils.KafkaTopicReader;
import io.archiver.testutils.LongRunning;
import io.archiver.testutils.SessionClusters;
import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TestRecords;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The upgrade cycle, job after job on one TaskManager of a real session cluster with Flink's default
 * metaspace: each job restores the savepoint of the one before, archives what was produced since, and stops
 * with a savepoint. A finished job must leave nothing that keeps its class loader (about 27 MB of metaspace
 * per job, which ran a default TaskManager out of metaspace at the eighth job): the TaskManager's metaspace after
 * full collections, after the second job (the first loads what every job shares) and after the last, must grow
 * by under 2 MB per job, and the archive be exactly once. A job's class loader that is kept stays after any
 * number of collections, so two measurements show what one after each job would.
 */
@ExtendWith(SharedStack.class)
@LongRunning(seconds = 71)
class SessionClusterUpgradesITCase {

    /**
     * Jobs in a row: two measured apart by two more. A kept class loader is about 27 MB of metaspace per job (the
     * eighth ran a default TaskManager out of it), over ten times the growth allowed, so two jobs between the
     * measurements show it as six would.
     */
    private static final int JOBS = 4;
    private static final long MAX_GROWTH_PER_JOB = 2L << 20;
    private static final PayloadFormats FORMATS = PayloadFormats.BYTES;
    private static SessionCluster cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = SessionClusters.start("upgrades", SessionClusters.freePort());
    }

    @AfterAll
    static void stopCluster() throws Exception {
        if (cluster != null) {
            cluster.stop();
        }
    }

    @Test
    void upgradesInARowKeepMetaspaceFlatAndTheArchiveExactlyOnce() throws Exception {
        SharedStack stack = SharedStack.get();
        String topic = SharedStack.uniqueName("upgrades");
        stack.kafka().createTopic(topic, 2);
        String root = "s3://" + SharedStack.BUCKET + "/" + topic;
        ArchiveCounter counter = new ArchiveCounter(root, FORMATS);
        long taskManager = Long.parseLong(cluster.pids().split("\n")[1].trim());

        long afterSecond = 0;
        String savepoint = null;
        for (int job = 1; job <= JOBS; job++) {
            TestRecords.produce(stack.kafka().bootstrapServers(), topic, 2, (job - 1) * 100, 100);
            String id = cluster.submitFrom(savepoint, jar(), args(topic, root));
            long expected = job * 100L;
            Await.until("job " + job + " archived " + expected + " records", Duration.ofMinutes(2), () -> counter.count() >= expected);
            savepoint = cluster.stopWithSavepoint(id, "s3://" + SharedStack.BUCKET + "/upgrades/savepoints");
            if (job == 2) {
                afterSecond = metaspaceAfterFullGc(taskManager);
            }
        }
        long afterLast = metaspaceAfterFullGc(taskManager);

        List<ArchiveRecord> inKafka = KafkaTopicReader.readAll(stack.kafka().bootstrapServers(), topic);
        ArchiveAssertions.assertExactlyOnce(root, FORMATS, inKafka);
        long growth = (afterLast - afterSecond) / (JOBS - 2);
        System.out.printf("TaskManager metaspace after the second job %.1f MB, after the last %.1f MB: %.2f MB per job%n",
                afterSecond / 1048576.0, afterLast / 1048576.0, growth / 1048576.0);
        assertThat(growth).as("metaspace growth per job, bytes (%d after the second job, %d after the last)", afterSecond, afterLast)
                .isLessThan(MAX_GROWTH_PER_JOB);
    }

    /**
     * The TaskManager's used metaspace after full collections, once the finished job's class loader has had
     * time to be released by the TaskManager (it lets go of a job's libraries shortly after its last task ends).
     */
    private static long metaspaceAfterFullGc(long pid) throws Exception {
        long lowest = Long.MAX_VALUE;
        for (int round = 0; round < 3; round++) {
            TimeUnit.SECONDS.sleep(2); // the TaskManager releases the job's class loader asynchronously
            jdkTool("jcmd", Long.toString(pid), "GC.run");
            lowest = Math.min(lowest, metaspaceUsed(pid));
        }
        return lowest;
    }

    /** Metaspace used (column MU of {@code jstat -gc}, in KB) of process {@code pid}, in bytes. */
    private static long metaspaceUsed(long pid) throws Exception {
        String[] lines = jdkTool("jstat", "-gc", Long.toString(pid)).trim().split("\n");
        String[] header = lines[0].trim().split("\\s+");
        String[] values = lines[1].trim().split("\\s+");
        for (int i = 0; i < header.length; i++) {
            if (header[i].equals("MU")) {
                return (long) (Double.parseDouble(values[i]) * 1024);
            }
        }
        throw new IllegalStateException("No MU column in jstat's output: " + String.join("\n", lines));
    }

    private static String jdkTool(String tool, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", tool).toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(1, TimeUnit.MINUTES)).isTrue();
        assertThat(p.exitValue()).as("%s %s: %s", tool, List.of(args), out).isZero();
        return out;
    }

    private static String[] args(String topic, String root) {
        SharedStack stack = SharedStack.get();
        return new String[] {
            "run",
            "-D", "kafka.bootstrap.servers=" + stack.kafka().bootstrapServers(),
            "-D", "kafka.topics=" + topic,
            "-D", "kafka.group.id=" + topic,
            "-D", "sink.path=" + root,
            "-D", "checkpoint.interval=1 s",
            "-D", "parallelism=2",
            "-D", "restart.strategy=none",
            "-D", "preflight.timeout=20 s",
            "-D", "fencing.lease-timeout=60 s"
        };
    }

    private static Path jar() {
        return Path.of(System.getProperty("archiver.shaded.jar"));
    }
}
