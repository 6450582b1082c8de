package io.archiver.local;

import io.archiver.archive.ArchiveRoot;
import io.archiver.capture.CaptureStore;
import io.archiver.cli.ArchiverCli;
import io.archiver.config.ArchiverConfig;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The local command's {@code --restore-demo}: a consumer group that processed half of every partition, the
 * topic archived with the group's offsets, then deleted (as by mistake) and restored with the group placed:
 * the group resumes with the very record it had not processed, and {@code restore --verify} proves the topic.
 * The restore runs through the job jar's own CLI with a configuration file written for it, so the commands it
 * prints are the ones an operator runs.
 */
final class RestoreDemo {

    static final String GROUP = "demo-readers";

    private final String bootstrap;
    private final String topic;
    private final int partitions;
    /** Per partition, the {@code seq} header of the first record the group has not processed. */
    private final Map<Integer, String> nextRecord = new TreeMap<>();

    RestoreDemo(String bootstrap, String topic, int partitions) {
        this.bootstrap = bootstrap;
        this.topic = topic;
        this.partitions = partitions;
    }

    /** The group processes (commits) the first half of every partition. */
    void groupHalfWay(PrintWriter out) {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(GROUP)) {
            List<TopicPartition> tps = partitions();
            consumer.assign(tps);
            Map<TopicPartition, Long> ends = consumer.endOffsets(tps);
            Map<TopicPartition, OffsetAndMetadata> half = new HashMap<>();
            ends.forEach((tp, end) -> half.put(tp, new OffsetAndMetadata(end / 2)));
            consumer.commitSync(half);
            nextRecord.putAll(firstRecords(consumer, half));
            out.printf("Consumer group '%s' processed the first half of each partition; it would read next: %s%n", GROUP, nextRecord);
        }
    }

    /** What the archiver job also needs: the group's offsets archived every second. */
    void addSettings(Map<String, String> settings) {
        settings.put("kafka.consumer-groups", GROUP);
        settings.put("kafka.consumer-groups.interval", "1 s");
    }

    /** Waits until the archiver archived the group's offsets; false (said) when the deadline passes first. */
    boolean awaitGroupArchived(PrintWriter out, ArchiverConfig cfg, Instant deadline) throws Exception {
        CaptureStore captured = new CaptureStore(ArchiveRoot.of(cfg));
        while (captured.groupOffsets(GROUP, null).isEmpty()) {
            if (Instant.now().isAfter(deadline)) {
                out.println("The group's offsets were not archived in time.");
                return false;
            }
            TimeUnit.MILLISECONDS.sleep(200);
        }
        return true;
    }

    /**
     * Deletes the archived topic (the archiver job stopped first: its positions name the old offsets) and
     * restores it with the CLI; 0 when the group resumes where it was.
     */
    int deleteAndRestore(PrintWriter out, Map<String, String> settings, Path workDir) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
            while (admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(topic)) {
                TimeUnit.MILLISECONDS.sleep(100);
            }
        }
        out.printf("%nDeleted topic '%s' (as by mistake). Restoring it from the archive:%n", topic);
        Path config = workDir.resolve("restore-demo.yaml").toAbsolutePath();
        writeConfig(config, settings);
        for (String[] command : List.of(
                new String[] {"restore", "--config", config.toString(), "--create-topics", "--consumer-groups", GROUP},
                new String[] {"restore", "--config", config.toString(), "--verify"})) {
            out.printf("%n$ archiver %s%n", String.join(" ", command));
            out.flush();
            int code = ArchiverCli.commandLine().setOut(out).setErr(out).execute(command);
            if (code != 0) {
                return code;
            }
        }
        Map<Integer, String> resumed;
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(GROUP)) {
            consumer.assign(partitions());
            resumed = firstRecords(consumer, null);
        }
        out.printf("%nConsumer group '%s' now reads next: %s -> %s%n", GROUP, resumed,
                resumed.equals(nextRecord) ? "the records it had not processed, as before the deletion"
                        : "NOT what it would have read before the deletion " + nextRecord);
        return resumed.equals(nextRecord) ? 0 : 1;
    }

    /** Per partition, the seq header of the first record at {@code from} (the group's committed offsets when null). */
    private Map<Integer, String> firstRecords(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, OffsetAndMetadata> from) {
        if (from != null) {
            from.forEach((tp, o) -> consumer.seek(tp, o.offset()));
        }
        Map<Integer, String> first = new TreeMap<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (first.size() < partitions && System.nanoTime() < deadline) {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                Header seq = r.headers().lastHeader("seq");
                first.putIfAbsent(r.partition(), seq == null ? "?" : "seq " + new String(seq.value(), StandardCharsets.UTF_8));
            }
        }
        return first;
    }

    private List<TopicPartition> partitions() {
        List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            tps.add(new TopicPartition(topic, p));
        }
        return tps;
    }

    private KafkaConsumer<byte[], byte[]> consumer(String group) {
        return new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, group,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class));
    }

    /** The archiver's settings as a flat YAML file for the CLI (the web UI port left to the restore's own choice). */
    private static void writeConfig(Path file, Map<String, String> settings) throws Exception {
        StringBuilder yaml = new StringBuilder("# Written by the local stack's --restore-demo: the archiver's settings.\n");
        settings.forEach((k, v) -> {
            if (!k.startsWith("flink.rest.")) {
                yaml.append(k).append(": \"").append(v.replace("\\", "\\\\").replace("\"", "\\\"")).append("\"\n");
            }
        });
        Files.writeString(file, yaml.toString());
    }
}
