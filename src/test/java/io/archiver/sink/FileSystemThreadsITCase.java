package io.archiver.sink;

import io.archiver.config.ArchiverConfig;
import io.archiver.job.JobLauncher;
import io.archiver.testutils.Await;
import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TestRecords;

import org.apache.flink.util.FlinkUserCodeClassLoader;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

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
class FileSystemThreadsITCase {

    /** Shorter than the idle time (60 s) after which the plugin's pools end unused threads. */
    private static final Duration SETTLE = Duration.ofSeconds(20);

    @Test
    void threadsStartedForUploadsDoNotKeepTheFinishedJobsClassLoader() throws Exception {
        SharedStack stack = SharedStack.get();
        String topic = SharedStack.uniqueName("fs-threads");
        stack.kafka().createTopic(topic, 2);
        try (KafkaProducer<byte[], byte[]> producer = TestRecords.producer(stack.kafka().bootstrapServers())) {
            for (int i = 0; i < 200; i++) {
                String value = i % 50 == 7 ? "not json {" : "{\"n\":" + i + "}";
                producer.send(new ProducerRecord<>(topic, i % 2, null, value.getBytes(StandardCharsets.UTF_8))).get();
            }
        }
        Map<String, String> settings = stack.jobSettings(topic, topic);
        settings.put("record.value.format", "json");
        settings.put("errors.policy", "dead-letter");
        settings.put("mode", "batch");
        ArchiverConfig config = ArchiverConfig.of(settings);

        JobLauncher.environment(config).executeAsync("fs-threads").getJobExecutionResult().get(120, TimeUnit.SECONDS);

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
