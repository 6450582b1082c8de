package io.archiver.job;

import io.archiver.config.ArchiverConfig;
import io.archiver.job.Preflight.PreflightException;
import io.archiver.local.EmbeddedKafka;
import io.archiver.local.EmbeddedKafka.Listener;
import io.archiver.local.TlsMaterial;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;
import io.archiver.testutils.CapturedLogs;
import io.archiver.testutils.Jobs;
import io.archiver.testutils.KafkaTopicReader;
import io.archiver.testutils.SharedMiniCluster;
import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TestRecords;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.provider.EnvVarConfigProvider;
import org.apache.kafka.common.config.provider.FileConfigProvider;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static io.archiver.testutils.ArchiveAssertions.archivedCount;
import static io.archiver.testutils.ArchiveAssertions.assertExactlyOnce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The archiver on a secured broker that enforces ACLs, as users granted only what archiving needs (Read on the
 * topic and on the group), on its three kinds of client listener: SASL SCRAM-SHA-512 over TLS, TLS with client
 * certificates (mTLS), and SASL PLAIN without TLS. Key stores and the CA are made when the test starts
 * ({@link TlsMaterial}). Every listener archives the committed records of a transactional topic exactly once,
 * checked against what a read_committed consumer reads back; a wrong password, a broker certificate the client
 * does not trust and a topic the user may not read each fail at pre-flight, quickly, naming the setting to fix;
 * a group the user may not use is a warning (a failure when the job starts from the group's offsets); a secret
 * can come from a file or from the TaskManagers' environment through Kafka's config providers; and no password
 * appears in any log line or message.
 */
@SharedMiniCluster
class SecureKafkaITCase {

    private static final String PASSWORD = EmbeddedKafka.USER + "-secret";
    private static final String WRONG_PASSWORD = "not-the-password-4711";
    private static final String SCRAM_USER = "archiver";
    /** Set for the integration tests by the failsafe configuration in pom.xml. */
    private static final String PASSWORD_VARIABLE = "SECURE_IT_KAFKA_PASSWORD";
    private static final String ENV_USER = "archiver-env";
    private static final String SCRAM_PASSWORD = "scram-password-" + UUID.randomUUID();
    private static final String STORE_PASSWORD = "store-password-" + UUID.randomUUID();
    private static final int PARTITIONS = 2;

    private static EmbeddedKafka kafka;
    private static TlsMaterial tls;
    private static Path secrets;

    @BeforeAll
    static void startSecuredBroker(@TempDir Path dir) throws Exception {
        tls = TlsMaterial.create(dir.resolve("tls"), STORE_PASSWORD, "archiver-mtls");
        kafka = EmbeddedKafka.startSecured(null, tls);
        kafka.createScramUser(SCRAM_USER, SCRAM_PASSWORD);
        secrets = dir.resolve("kafka-secrets.properties");
        Files.writeString(secrets, "scram.password=" + SCRAM_PASSWORD + "\n");
    }

    @AfterAll
    static void stopSecuredBroker() throws Exception {
        kafka.close();
    }

    @Test
    void aScramUserOverTlsArchivesTheCommittedRecordsExactlyOnceWithItsPasswordReadFromAFile() throws Exception {
        String topic = SharedStack.uniqueName("scram");
        createTopicReadableBy(topic, topic, "User:" + SCRAM_USER);
        List<ArchiveRecord> truth = produceTransactionsAndReadBack(topic);
        Map<String, String> settings = scramSettings(topic, "${file:" + secrets + ":scram.password}");
        settings.put("kafka.properties.config.providers", "file");
        settings.put("kafka.properties.config.providers.file.class", FileConfigProvider.class.getName());
        archiveAndCheck(ArchiverConfig.of(settings), truth);
    }

    @Test
    void aScramUserWhosePasswordComesFromTheEnvironmentArchivesTheCommittedRecordsExactlyOnce() throws Exception {
        String password = System.getenv(PASSWORD_VARIABLE);
        assertThat(password).as(PASSWORD_VARIABLE + ", set by the failsafe configuration in pom.xml").isNotBlank();
        kafka.createScramUser(ENV_USER, password);
        String topic = SharedStack.uniqueName("scram-env");
        createTopicReadableBy(topic, topic, "User:" + ENV_USER);
        List<ArchiveRecord> truth = produceTransactionsAndReadBack(topic);
        Map<String, String> settings = scramSettings(topic, ENV_USER, "${env:" + PASSWORD_VARIABLE + "}");
        settings.put("kafka.properties.config.providers", "env");
        settings.put("kafka.properties.config.providers.env.class", EnvVarConfigProvider.class.getName());
        archiveAndCheck(ArchiverConfig.of(settings), truth);
    }

    @Test
    void clientCertificatesArchiveTheCommittedRecordsExactlyOnce() throws Exception {
        String topic = SharedStack.uniqueName("mtls");
        createTopicReadableBy(topic, topic, "User:" + tls.client());
        List<ArchiveRecord> truth = produceTransactionsAndReadBack(topic);
        Map<String, String> settings = SharedStack.get().jobSettings(topic, topic);
        settings.put("kafka.bootstrap.servers", kafka.bootstrapServers(Listener.SSL));
        settings.put("kafka.properties.security.protocol", "SSL");
        settings.put("kafka.properties.ssl.keystore.type", "PKCS12");
        settings.put("kafka.properties.ssl.keystore.location", tls.clientKeyStore().toString());
        settings.put("kafka.properties.ssl.keystore.password", STORE_PASSWORD);
        settings.put("kafka.properties.ssl.key.password", STORE_PASSWORD);
        trust(settings);
        archiveAndCheck(ArchiverConfig.of(settings), truth);
    }

    @Test
    void aWrongScramPasswordFailsPreflightAtOnceNamingTheSettingWithoutThePassword() throws Exception {
        String topic = SharedStack.uniqueName("scram-wrong");
        createTopicReadableBy(topic, topic, "User:" + SCRAM_USER);
        assertPreflightFailsQuickly(ArchiverConfig.of(scramSettings(topic, WRONG_PASSWORD)), WRONG_PASSWORD,
                "refused the SASL credentials", "kafka.properties.sasl.jaas.config");
    }

    @Test
    void aBrokerCertificateTheClientDoesNotTrustFailsPreflightAtOnceNamingTheTrustStore() throws Exception {
        String topic = SharedStack.uniqueName("scram-untrusted");
        createTopicReadableBy(topic, topic, "User:" + SCRAM_USER);
        Map<String, String> settings = scramSettings(topic, SCRAM_PASSWORD);
        settings.remove("kafka.properties.ssl.truststore.location"); // the JDK's public CAs do not know this broker's
        settings.remove("kafka.properties.ssl.truststore.password");
        settings.remove("kafka.properties.ssl.truststore.type");
        assertPreflightFailsQuickly(ArchiverConfig.of(settings), SCRAM_PASSWORD,
                "TLS handshake", "kafka.properties.ssl.truststore.location");
    }

    @Test
    void aScramUserWithoutReadOnTheTopicFailsPreflightNamingTheTopicAndTheAclToGrant() throws Exception {
        String topic = SharedStack.uniqueName("scram-denied");
        createTopicReadableBy(topic, topic, "User:someone-else");
        assertPreflightFailsQuickly(ArchiverConfig.of(scramSettings(topic, SCRAM_PASSWORD)), SCRAM_PASSWORD,
                "may not read", topic);
    }

    @Test
    void aPlainUserWithReadAclsArchivesTheCommittedRecordsExactlyOnce() throws Exception {
        String topic = SharedStack.uniqueName("sasl");
        createTopicReadableBy(topic, topic, "User:" + EmbeddedKafka.USER);
        archiveAndCheck(config(topic, PASSWORD), produceTransactionsAndReadBack(topic));
    }

    @Test
    void aWrongPlainPasswordFailsPreflightAtOnceNamingTheSettingWithoutThePassword() throws Exception {
        String topic = SharedStack.uniqueName("sasl-wrong");
        createTopicReadableBy(topic, topic, "User:" + EmbeddedKafka.USER);
        assertPreflightFailsQuickly(config(topic, WRONG_PASSWORD), WRONG_PASSWORD,
                "refused the SASL credentials", "kafka.properties.sasl.jaas.config");
    }

    @Test
    void aPlainUserWithoutReadOnTheTopicFailsPreflightNamingTheTopicAndTheAclToGrant() throws Exception {
        String topic = SharedStack.uniqueName("sasl-denied");
        kafka.createTopic(topic, PARTITIONS);
        assertPreflightFailsQuickly(config(topic, PASSWORD), PASSWORD, "may not read", topic, "Read");
    }

    @Test
    void aGroupTheUserMayNotUseIsAWarningUnlessTheJobStartsFromItsCommittedOffsets() throws Exception {
        String topic = SharedStack.uniqueName("sasl-group");
        createTopicReadableBy(topic, "another-group", "User:" + EmbeddedKafka.USER);
        ArchiverConfig config = config(topic, PASSWORD);
        try (CapturedLogs logs = CapturedLogs.start()) {
            new Preflight(Duration.ofSeconds(30), fileSystems()).check(config);
            assertThat(logs.containing("may not use the consumer group '" + topic + "'")).hasSize(1);
        }
        Map<String, String> committed = new java.util.HashMap<>(config.toMap());
        committed.put("kafka.start", "committed");
        assertThatThrownBy(() -> new Preflight(Duration.ofSeconds(30), fileSystems()).check(ArchiverConfig.of(committed)))
                .isInstanceOf(PreflightException.class)
                .hasMessageContaining("may not use the consumer group '" + topic + "' ('kafka.group.id')");
    }

    /** Creates {@code topic} and lets {@code principal} read it and use consumer group {@code group}. */
    private static void createTopicReadableBy(String topic, String group, String principal) throws Exception {
        kafka.createTopic(topic, PARTITIONS);
        kafka.allow(principal, new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL),
                AclOperation.READ, AclOperation.DESCRIBE_CONFIGS);
        kafka.allow(principal, new ResourcePattern(ResourceType.GROUP, group, PatternType.LITERAL), AclOperation.READ);
    }

    /**
     * Transactions of 100 records over the partitions, every third aborted after its records reached the log;
     * returns what a read_committed consumer reads back: the ground truth of the archive.
     */
    private static List<ArchiveRecord> produceTransactionsAndReadBack(String topic) throws Exception {
        List<ArchiveRecord> committed = TestRecords.produceTransactions(kafka.adminClientProperties(), topic, PARTITIONS, 0, 3_000, 100, 3);
        List<ArchiveRecord> truth = KafkaTopicReader.readAll(kafka.adminClientProperties(), topic);
        assertThat(truth).hasSameSizeAs(committed).hasSizeLessThan(3_000);
        return truth;
    }

    /** Runs pre-flight and the job until every record of {@code truth} is archived; checks the archive and the logs. */
    private static void archiveAndCheck(ArchiverConfig config, List<ArchiveRecord> truth) throws Exception {
        try (CapturedLogs logs = CapturedLogs.start()) {
            new Preflight(Duration.ofSeconds(30), fileSystems()).check(config);
            JobClient job = JobLauncher.environment(config).executeAsync("archive " + config.topics());
            try {
                Jobs.awaitWhileRunning(job, "every committed record archived", Duration.ofMinutes(2),
                        () -> archivedCount(config.sinkPath(), PayloadFormats.BYTES) >= truth.size());
            } finally {
                Jobs.cancel(job);
            }
            for (String secret : List.of(PASSWORD, SCRAM_PASSWORD, STORE_PASSWORD, System.getenv(PASSWORD_VARIABLE))) {
                assertThat(logs.containing(secret)).isEmpty();
            }
        }
        assertExactlyOnce(config.sinkPath(), PayloadFormats.BYTES, truth);
    }

    private static void assertPreflightFailsQuickly(ArchiverConfig config, String secret, String... messageParts) {
        try (CapturedLogs logs = CapturedLogs.start()) {
            long start = System.nanoTime();
            var failure = assertThatThrownBy(() -> new Preflight(Duration.ofSeconds(30), fileSystems()).check(config))
                    .isInstanceOf(PreflightException.class)
                    .hasMessageNotContaining(secret)
                    .hasMessageNotContaining(STORE_PASSWORD);
            for (String part : messageParts) {
                failure.hasMessageContaining(part);
            }
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
            assertThat(logs.containing(secret)).isEmpty();
            assertThat(logs.containing(STORE_PASSWORD)).isEmpty();
        }
    }

    /** SCRAM-SHA-512 over TLS as {@value #SCRAM_USER}, the broker's CA trusted. */
    private static Map<String, String> scramSettings(String topic, String password) {
        return scramSettings(topic, SCRAM_USER, password);
    }

    private static Map<String, String> scramSettings(String topic, String user, String password) {
        Map<String, String> settings = SharedStack.get().jobSettings(topic, topic);
        settings.put("kafka.bootstrap.servers", kafka.bootstrapServers(Listener.SASL_SSL));
        settings.put("kafka.properties.security.protocol", "SASL_SSL");
        settings.put("kafka.properties.sasl.mechanism", "SCRAM-SHA-512");
        settings.put("kafka.properties.sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required "
                + "username=\"" + user + "\" password=\"" + password + "\";");
        trust(settings);
        return settings;
    }

    private static void trust(Map<String, String> settings) {
        settings.put("kafka.properties.ssl.truststore.type", "PKCS12");
        settings.put("kafka.properties.ssl.truststore.location", tls.trustStore().toString());
        settings.put("kafka.properties.ssl.truststore.password", STORE_PASSWORD);
    }

    private static ArchiverConfig config(String topic, String password) {
        Map<String, String> settings = SharedStack.get().jobSettings(topic, topic);
        settings.put("kafka.bootstrap.servers", kafka.bootstrapServers());
        settings.put("kafka.properties.security.protocol", "SASL_PLAINTEXT");
        settings.put("kafka.properties.sasl.mechanism", "PLAIN");
        settings.put("kafka.properties.sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required "
                + "username=\"" + EmbeddedKafka.USER + "\" password=\"" + password + "\";");
        return ArchiverConfig.of(settings);
    }

    private static Configuration fileSystems() {
        return Configuration.fromMap(SharedStack.get().s3().flinkSettings());
    }
}
