package io.archiver.local;

import org.apache.flink.util.FileUtils;

import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;

/**
 * The embedded stack of the {@code local} command: a Kafka broker and an S3-compatible server on
 * 127.0.0.1 with their data in a working folder (wiped at start, kept after exit for inspection), and the
 * archiver settings that point at them.
 *
 * <p>Secured ({@link #startSecured}), it runs as production clusters do: Kafka over TLS with a SCRAM-SHA-512
 * user that has only the ACLs archiving needs, S3 over HTTPS, both with certificates of a private CA made at
 * start; the archiver reads its Kafka secrets from a file through Kafka's config providers, trusts the CA through
 * trust stores, and requires SSE-KMS of every object it writes (the S3 server records the headers it receives).
 */
public final class LocalStack implements AutoCloseable {

    public static final String BUCKET = "archive";
    /** The SCRAM user of the secured stack. */
    public static final String KAFKA_USER = "archiver";
    /** The KMS key id the secured stack's archiver asks S3 to encrypt with (S3Proxy records it, does not encrypt). */
    public static final String KMS_KEY = "arn:aws:kms:us-east-1:000000000000:key/local-demo-key";

    private static final List<String> TRUST_STORE_PROPERTIES =
            List.of("javax.net.ssl.trustStore", "javax.net.ssl.trustStorePassword", "javax.net.ssl.trustStoreType");

    private final Path workDir;
    private final AutoCloseable servers;
    private final EmbeddedS3 s3;
    private final KafkaBrokers kafka;
    /** The in-JVM broker of the one-broker stack (the secured stack's ACLs and users); null for a cluster of processes. */
    private final EmbeddedKafka embedded;
    /** The brokers of their own processes of {@link #startCluster}; null otherwise. */
    private final KafkaProcessCluster cluster;
    private final Secured secured;

    /** What the secured stack adds: its CA and stores, the secrets file, the S3 requests it records. */
    private record Secured(TlsMaterial tls, Path secrets, EncryptionRecordingBlobStore requests) {}

    private LocalStack(Path workDir, EmbeddedServers servers, Secured secured) {
        this.workDir = workDir;
        this.servers = servers;
        this.s3 = servers.s3();
        this.kafka = servers.kafka();
        this.embedded = servers.kafka();
        this.cluster = null;
        this.secured = secured;
    }

    private LocalStack(Path workDir, EmbeddedS3 s3, KafkaProcessCluster cluster) {
        this.workDir = workDir;
        this.s3 = s3;
        this.kafka = cluster;
        this.embedded = null;
        this.cluster = cluster;
        this.secured = null;
        this.servers = () -> {
            try {
                cluster.close();
            } finally {
                s3.close();
            }
        };
    }
    public static LocalStack start(Path workDir, int s3Port) throws Exception {
        Path dir = clean(workDir);
        EmbeddedServers servers = EmbeddedServers.withBucket(dir.resolve("s3"), BUCKET).s3Port(s3Port).kafkaData(dir.resolve("kafka")).start();
        return new LocalStack(dir, servers, null);
    }

    /**
     * The stack with a Kafka cluster of {@code brokers} brokers and a KRaft controller, each a JVM of its own
     * ({@link KafkaProcessCluster}: replication 3, {@code min.insync.replicas} 2), their data and logs under
     * {@code <work>/kafka}: for trying faults by hand (kill a broker, watch the job archive on).
     */
    public static LocalStack startCluster(Path workDir, int s3Port, int brokers) throws Exception {
        Path dir = clean(workDir);
        EmbeddedS3 s3 = EmbeddedS3.start(dir.resolve("s3"), s3Port, null, java.util.function.UnaryOperator.identity());
        try {
            s3.createBucket(BUCKET);
            return new LocalStack(dir, s3, KafkaProcessCluster.start(dir.resolve("kafka"), brokers));
        } catch (Exception e) {
            s3.close();
            throw e;
        }
    }

    /**
     * The secured stack: Kafka's client listener for the archiver is SASL_SSL (SCRAM-SHA-512), S3 serves HTTPS on
     * {@code s3Port}; this JVM (the local Flink's) trusts the CA through {@code javax.net.ssl.trustStore}, as a
     * TaskManager would through its JVM options. Secrets go to {@code <work>/secrets/} (readable by the owner only).
     */
    public static LocalStack startSecured(Path workDir, int s3Port) throws Exception {
        Path dir = clean(workDir);
        String storePassword = UUID.randomUUID().toString();
        TlsMaterial tls = TlsMaterial.create(dir.resolve("tls"), storePassword, KAFKA_USER);
        Map<String, String> trust = Map.of(TRUST_STORE_PROPERTIES.get(0), tls.trustStore().toString(),
                TRUST_STORE_PROPERTIES.get(1), storePassword, TRUST_STORE_PROPERTIES.get(2), "PKCS12");
        trust.forEach(System::setProperty);
        EncryptionRecordingBlobStore[] requests = new EncryptionRecordingBlobStore[1];
        EmbeddedServers servers = EmbeddedServers.withBucket(dir.resolve("s3"), BUCKET).s3Port(s3Port).kafkaData(dir.resolve("kafka")).tls(tls)
                .s3Store(store -> requests[0] = new EncryptionRecordingBlobStore(store)).start();
        try {
            String scramPassword = UUID.randomUUID().toString();
            servers.kafka().createScramUser(KAFKA_USER, scramPassword);
            Path secrets = dir.resolve("secrets").resolve("kafka.properties");
            Files.createDirectories(secrets.getParent());
            Files.writeString(secrets, "scram.password=" + scramPassword + "\ntruststore.password=" + storePassword + "\n");
            secrets.toFile().setReadable(false, false);
            secrets.toFile().setReadable(true, true);
            return new LocalStack(dir, servers, new Secured(tls, secrets, requests[0]));
        } catch (Exception e) {
            servers.close();
            throw e;
        }
    }

    private static Path clean(Path workDir) throws Exception {
        Path dir = workDir.toAbsolutePath();
        for (String sub : new String[] {"s3", "kafka", "checkpoints", "tls", "secrets"}) {
            FileUtils.deleteDirectoryQuietly(dir.resolve(sub).toFile());
        }
        Files.createDirectories(dir.resolve("kafka"));
        return dir;
    }

    /**
     * Creates {@code topic}; on the secured stack also grants the archiver's user what archiving it needs: Read
     * and Describe Configs on the topic, Read on the archiver's consumer group {@code group}.
     */
    public void createTopic(String topic, int partitions, String group) throws Exception {
        kafka.createTopic(topic, partitions);
        if (secured != null) {
            String user = "User:" + KAFKA_USER;
            embedded.allow(user, new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL),
                    AclOperation.READ, AclOperation.DESCRIBE_CONFIGS);
            embedded.allow(user, new ResourcePattern(ResourceType.GROUP, group, PatternType.LITERAL), AclOperation.READ);
        }
    }

    /** The client settings of a producer of sample records (on the secured stack: the broker's admin user). */
    public Properties producerClient() {
        if (embedded != null) {
            return embedded.adminClientProperties();
        }
        Properties props = new Properties();
        props.put("bootstrap.servers", kafka.bootstrapServers());
        return props;
    }

    /** The brokers' process ids by broker id, for a cluster of {@link #startCluster}; empty for the one-broker stack. */
    public Map<Integer, Long> brokerProcesses() {
        return cluster == null ? Map.of() : cluster.brokerProcesses();
    }

    /** The S3 requests that created objects, with their encryption headers; empty unless secured. */
    public List<EncryptionRecordingBlobStore.Write> objectWrites() {
        return secured == null ? List.of() : secured.requests().writes();
    }

    /** The secured stack's CA certificate (PEM), which clients must trust. */
    public Path caCertificate() {
        return secured.tls().caCertificate();
    }

    public KafkaBrokers kafka() {
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
        if (secured != null) {
            s.putAll(securedSettings());
        }
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

    /**
     * The archiver's settings for the secured stack: SCRAM over TLS with the password and the trust store's
     * password read from the secrets file by Kafka's {@code FileConfigProvider} (the configuration holds references,
     * never the secrets), and SSE-KMS required of every object.
     */
    private Map<String, String> securedSettings() {
        String secrets = secured.secrets().toString();
        Map<String, String> s = new LinkedHashMap<>();
        s.put("kafka.bootstrap.servers", embedded.bootstrapServers(EmbeddedKafka.Listener.SASL_SSL));
        s.put("kafka.properties.security.protocol", "SASL_SSL");
        s.put("kafka.properties.sasl.mechanism", "SCRAM-SHA-512");
        s.put("kafka.properties.sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
                + KAFKA_USER + "\" password=\"${file:" + secrets + ":scram.password}\";");
        s.put("kafka.properties.ssl.truststore.type", "PKCS12");
        s.put("kafka.properties.ssl.truststore.location", secured.tls().trustStore().toString());
        s.put("kafka.properties.ssl.truststore.password", "${file:" + secrets + ":truststore.password}");
        s.put("kafka.properties.config.providers", "file");
        s.put("kafka.properties.config.providers.file.class", "org.apache.kafka.common.config.provider.FileConfigProvider");
        s.put("sink.s3.encryption", "sse-kms");
        s.put("sink.s3.kms-key-id", KMS_KEY);
        return s;
    }

    @Override
    public void close() throws Exception {
        try {
            servers.close();
        } finally {
            if (secured != null) {
                TRUST_STORE_PROPERTIES.forEach(System::clearProperty);
            }
        }
    }
}
