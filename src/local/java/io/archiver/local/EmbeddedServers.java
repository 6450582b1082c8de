package io.archiver.local;

import org.gaul.s3proxy.blobstore.BlobStore;

import java.nio.file.Path;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * A Kafka broker and an S3-compatible server with one bucket, started together: the one way the local stack
 * ({@link LocalStack}), the benchmarks and the tests start the servers they share. The S3 server starts first and
 * is closed again if the broker does not start.
 */
public final class EmbeddedServers implements AutoCloseable {

    private final EmbeddedS3 s3;
    private final EmbeddedKafka kafka;

    private EmbeddedServers(EmbeddedS3 s3, EmbeddedKafka kafka) {
        this.s3 = s3;
        this.kafka = kafka;
    }

    /** Servers whose S3 objects live under {@code s3Data}, with a bucket named {@code bucket}. */
    public static Builder withBucket(Path s3Data, String bucket) {
        return new Builder(s3Data, bucket);
    }

    public EmbeddedS3 s3() {
        return s3;
    }

    public EmbeddedKafka kafka() {
        return kafka;
    }

    /** The Flink settings that reach the S3 server (endpoint, path-style access, keys). */
    public Map<String, String> s3Settings() {
        return s3.flinkSettings();
    }

    @Override
    public void close() throws Exception {
        try {
            kafka.close();
        } finally {
            s3.close();
        }
    }

    /** How the servers start: the S3 server's port and store, the broker's data folder, TLS for both. */
    public static final class Builder {
        private final Path s3Data;
        private final String bucket;
        private int s3Port;
        private UnaryOperator<BlobStore> store = UnaryOperator.identity();
        private Path kafkaData;
        private TlsMaterial tls;

        private Builder(Path s3Data, String bucket) {
            this.s3Data = s3Data;
            this.bucket = bucket;
        }

        /** The S3 server's port (0, the default: a free one). */
        public Builder s3Port(int port) {
            this.s3Port = port;
            return this;
        }

        /** The S3 server serves through {@code decorator} (to count requests, record headers or inject faults). */
        public Builder s3Store(UnaryOperator<BlobStore> decorator) {
            this.store = decorator;
            return this;
        }

        /** The broker's data folder (the default: a temporary one). */
        public Builder kafkaData(Path dir) {
            this.kafkaData = dir;
            return this;
        }

        /** Secured as production runs them: S3 over HTTPS, the broker's listeners of {@link EmbeddedKafka#startSecured}. */
        public Builder tls(TlsMaterial material) {
            this.tls = material;
            return this;
        }

        public EmbeddedServers start() throws Exception {
            EmbeddedS3 s3 = EmbeddedS3.start(s3Data, s3Port, tls, store);
            try {
                s3.createBucket(bucket);
                EmbeddedKafka kafka = tls == null ? EmbeddedKafka.start(kafkaData) : EmbeddedKafka.startSecured(kafkaData, tls);
                return new EmbeddedServers(s3, kafka);
            } catch (Exception e) {
                s3.close();
                throw e;
            }
        }
    }
}
