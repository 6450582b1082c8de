package io.archiver.bench;

import io.archiver.job.JobLauncher;
import io.archiver.local.EmbeddedKafka;
import io.archiver.local.EmbeddedS3;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.util.FileUtils;
import org.gaul.s3proxy.blobstore.BlobStore;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.UnaryOperator;

/**
 * What the benchmarks run against, under one work folder: an S3 server with the bucket {@value #BUCKET} (its
 * blob store optionally wrapped, e.g. to count requests), a Kafka broker, and this JVM's file systems set up for
 * that server.
 */
final class BenchStack implements AutoCloseable {

    static final String BUCKET = "bench";

    private final EmbeddedS3 s3;
    private final EmbeddedKafka kafka;
    private final Configuration fileSystems;

    private BenchStack(EmbeddedS3 s3, EmbeddedKafka kafka, Configuration fileSystems) {
        this.s3 = s3;
        this.kafka = kafka;
        this.fileSystems = fileSystems;
    }

    /**
     * A new work folder for one benchmark's run, deleted when the JVM exits (its topics and archives take up to
     * about 20 GB; a run that fails or is stopped halfway leaves nothing behind either).
     */
    static Path workFolder(String name) throws IOException {
        Path work = Files.createTempDirectory(name);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> FileUtils.deleteDirectoryQuietly(work.toFile()), "delete " + work));
        return work;
    }

    static BenchStack start(Path work) throws Exception {
        return start(work, UnaryOperator.identity());
    }

    static BenchStack start(Path work, UnaryOperator<BlobStore> store) throws Exception {
        EmbeddedS3 s3 = EmbeddedS3.start(work.resolve("s3"), 0, store);
        try {
            s3.createBucket(BUCKET);
            Configuration fs = new Configuration();
            s3.flinkSettings().forEach(fs::setString);
            JobLauncher.initializeFileSystems(fs);
            return new BenchStack(s3, EmbeddedKafka.start(work.resolve("kafka")), fs);
        } catch (Exception e) {
            s3.close();
            throw e;
        }
    }

    EmbeddedS3 s3() {
        return s3;
    }

    EmbeddedKafka kafka() {
        return kafka;
    }

    /** The Flink settings the file systems were set up with (the S3 server's endpoint and keys). */
    Configuration fileSystems() {
        return fileSystems;
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
