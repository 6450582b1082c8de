package io.archiver.bench;

import io.archiver.job.JobLauncher;
import io.archiver.local.EmbeddedKafka;
import io.archiver.local.EmbeddedS3;
import io.archiver.local.EmbeddedServers;

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

    private final EmbeddedServers servers;
    private final Configuration fileSystems;

    private BenchStack(EmbeddedServers servers, Configuration fileSystems) {
        this.servers = servers;
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
        EmbeddedServers servers = EmbeddedServers.withBucket(work.resolve("s3"), BUCKET).s3Store(store).kafkaData(work.resolve("kafka")).start();
        Configuration fs = new Configuration();
        servers.s3Settings().forEach(fs::setString);
        JobLauncher.initializeFileSystems(fs);
        return new BenchStack(servers, fs);
    }

    EmbeddedS3 s3() {
        return servers.s3();
    }

    EmbeddedKafka kafka() {
        return servers.kafka();
    }

    /** The Flink settings the file systems were set up with (the S3 server's endpoint and keys). */
    Configuration fileSystems() {
        return fileSystems;
    }

    @Override
    public void close() throws Exception {
        servers.close();
    }
}
