package io.archiver.local;

import org.apache.flink.util.FileUtils;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The embedded stack of the {@code local} command: a Kafka broker and an S3-compatible server on
 * 127.0.0.1 with their data in a working folder (wiped at start, kept after exit for inspection), and the
 * archiver settings that point at them.
 */
public final class LocalStack implements AutoCloseable {

    public static final String BUCKET = "archive";

    private final Path workDir;
    private final EmbeddedS3 s3;
    private final EmbeddedKafka kafka;

    private LocalStack(Path workDir, EmbeddedS3 s3, EmbeddedKafka kafka) {
        this.workDir = workDir;
        this.s3 = s3;
        this.kafka = kafka;
    }

    public static LocalStack start(Path workDir, int s3Port) throws Exception {
        Path dir = workDir.toAbsolutePath();
        for (String sub : new String[] {"s3", "kafka", "checkpoints"}) {
            FileUtils.deleteDirectoryQuietly(dir.resolve(sub).toFile());
        }
        Files.createDirectories(dir.resolve("kafka"));
        EmbeddedS3 s3 = EmbeddedS3.start(dir.resolve("s3"), s3Port);
        try {
            s3.createBucket(BUCKET);
            return new LocalStack(dir, s3, EmbeddedKafka.start(dir.resolve("kafka")));
        } catch (Exception e) {
            s3.close();
            throw e;
        }
    }

    public EmbeddedKafka kafka() {
        return kafka;
    }

    public EmbeddedS3 s3() {
        return s3;
    }

    public Path workDir() {
        return workDir;
    }

    /** Archiver settings for archiving {@code topic} of this stack to s3://archive/{@code topic}. */
    public Map<String, String> archiverSettings(String topic, int uiPort) {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("kafka.bootstrap.servers", kafka.bootstrapServers());
        s.put("kafka.topics", topic);
        s.put("sink.path", "s3://" + BUCKET + "/" + topic);
        s.put("record.key.format", "string");
        s.put("record.value.format", "json");
        s.put("record.header.format", "string");
        s.put("checkpoint.interval", "2 s");
        s.put("checkpoint.dir", workDir.resolve("checkpoints").toUri().toString());
        s.put("restart.strategy", "fixed-delay");
        s.put("restart.attempts", "3");
        s.put("parallelism", "2");
        s.put("flink.rest.address", "127.0.0.1");
        s.put("flink.rest.bind-address", "127.0.0.1");
        s.put("flink.rest.bind-port", Integer.toString(uiPort));
        s3.flinkSettings().forEach((k, v) -> s.put("flink." + k, v));
        return s;
    }

    @Override
    public void close() throws Exception {
        try {
            kafka.close();
        } finally {
            s3.close();
        }
    }
}
