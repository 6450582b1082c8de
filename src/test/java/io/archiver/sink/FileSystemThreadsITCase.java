package io.archiver.sink;

import io.archiver.config.ArchiverConfig;
import io.archiver.job.JobLauncher;
import io.archiver.record.PayloadFormats;
import io.archiver.testutils.ArchiveCounter;
import io.archiver.testutils.Jobs;
import io.archiver.testutils.Await;
import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TestRecords;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.util.FlinkUserCodeClassLoader;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Isolated;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Threads that the S3 filesystem starts while a job writes (upload pools of the plugin, which outlive the job)
 * must not keep that job's class loader as their context class loader: Flink closes it when the job ends, and
 * a later job's upload on such a thread fails with "Trying to access closed classloader".
 */
@ExtendWith(SharedStack.class)
@Isolated // no other class's job threads while it looks at every thread
class FileSystemThreadsITCase {

    /** Shorter than the idle time (60 s) after which the plugin's pools end unused threads. */
    private static final Duration SETTLE = Duration.ofSeconds(20);
    private static final int RECORDS = 200;
    private static final int VALID_RECORDS = 196;

    /** Batch: the writer, its end-of-input commit, position records, dead letters; the job ends by itself. */
    @Test
    void threadsStartedForUploadsDoNotKeepTheFinishedBatchJobsClassLoader() throws Exception {
        Map<String, String> settings = settingsWithRecords("fs-threads-batch");
        settings.put("mode", "batch");

        JobLauncher.environment(ArchiverConfig.of(settings)).executeAsync("fs-threads-batch")
                .getJobExecutionResult().get(120, TimeUnit.SECONDS);

        assertNoThreadKeepsAJobClassLoader();
    }

    /**
     * Streaming: files rolled by the writer's inactivity timer (their uploads start in the timer's callback),
     * checkpoints, commits, lease renewals; the job is cancelled once everything is archived.
     */
    @Test
    void threadsStartedForUploadsDoNotKeepTheCancelledStreamingJobsClassLoader() throws Exception {
        Map<String, String> settings = settingsWithRecords("fs-threads-streaming");
        // files roll on the writer's inactivity timer long before the first checkpoint: their uploads start there
        settings.put("sink.roll.inactivity", "200 ms");
        settings.put("sink.bucket-check-interval", "100 ms");
        settings.put("checkpoint.interval", "10 s");
        settings.put("fencing.lease-timeout", "30 s");
        ArchiverConfig config = ArchiverConfig.of(settings);

        JobClient job = JobLauncher.environment(config).executeAsync("fs-threads-streaming");
        try {
            ArchiveCounter archived = new ArchiveCounter(config.sinkPath(), PayloadFormats.of(config));
            Await.until("every valid record archived", Duration.ofSeconds(120), () -> archived.count() == VALID_RECORDS);
        } finally {
            Jobs.cancel(job);
        }
        Await.until("the job to end", Duration.ofSeconds(30), () -> job.getJobStatus().get().isTerminalState());

        assertNoThreadKeepsAJobClassLoader();
    }

    /** A topic of 200 JSON records, 4 of them invalid (dead-lettered), and settings to archive it. */
    private static Map<String, String> settingsWithRecords(String name) throws Exception {
        SharedStack stack = SharedStack.get();
        String topic = SharedStack.uniqueName(name);
        stack.kafka().createTopic(topic, 2);
        try (KafkaProducer<byte[], byte[]> producer = TestRecords.producer(stack.kafka().bootstrapServers())) {
            for (int i = 0; i < RECORDS; i++) {
                String value = i % 50 == 7 ? "not json {" : "{\"n\":" + i + "}";
                producer.send(new ProducerRecord<>(topic, i % 2, null, value.getBytes(StandardCharsets.UTF_8))).get();
            }
        }
        Map<String, String> settings = stack.jobSettings(topic, topic);
        settings.put("record.value.format", "json");
        settings.put("errors.policy", "dead-letter");
        return settings;
    }

    private static void assertNoThreadKeepsAJobClassLoader() throws Exception {
        Await.until("no thread outside Flink's runtime to keep a job's class loader as context loader", SETTLE,
                () -> threadsKeepingAJobClassLoader().isEmpty(),
                () -> "still kept by " + threadsKeepingAJobClassLoader());
    }

    private static List<String> threadsKeepingAJobClassLoader() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && !isFlinkRuntimeThread(t) && isJobClassLoader(t.getContextClassLoader()))
                .map(t -> t.getName() + " (" + t.getContextClassLoader().getClass().getSimpleName() + ")")
                .sorted()
                .collect(Collectors.toList());
    }

    /**
     * Task threads (a job's own, they end with it) and the network threads that Flink starts from the first
     * task that needs them (its shuffle's, which never reach the file system; not the archiver's to change).
     */
    private static boolean isFlinkRuntimeThread(Thread t) {
        ThreadGroup group = t.getThreadGroup();
        return (group != null && group.getName().equals("Flink Task Threads"))
                || t.getName().startsWith("Flink Netty Client")
                || t.getName().startsWith("blocking-shuffle-io-thread");
    }

    private static boolean isJobClassLoader(ClassLoader loader) {
        return loader instanceof FlinkUserCodeClassLoader
                || (loader != null && loader.getClass().getName().startsWith("org.apache.flink.util.FlinkUserCodeClassLoaders$"));
    }
}
