package io.archiver.job;

import io.archiver.config.ArchiverConfig;
import io.archiver.job.Preflight.PreflightException;
import io.archiver.local.EmbeddedKafka;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;
import io.archiver.testutils.CapturedLogs;
import io.archiver.testutils.Jobs;
import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TestRecords;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static io.archiver.testutils.ArchiveAssertions.archivedCount;
import static io.archiver.testutils.ArchiveAssertions.assertExactlyOnce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The archiver on a broker that requires SASL (PLAIN over SASL_PLAINTEXT) and enforces ACLs, as a user granted
 * only what archiving needs (read on the topic and on the group): every record archived exactly once; a wrong
 * password and a topic the user may not read each fail at pre-flight, quickly, naming the setting to fix; a
 * group it may not use is a warning (a failure when the job starts from the group's offsets); and no password
 * appears in any log line or message of these runs.
 */
@ExtendWith(SharedStack.class)
class SaslKafkaITCase {

    private static final String PASSWORD = EmbeddedKafka.USER + "-secret";
    private static final String WRONG_PASSWORD = "not-the-password-4711";
    private static final int PARTITIONS = 2;

    private static EmbeddedKafka kafka;

    @BeforeAll
    static void startSecuredBroker() throws Exception {
        kafka = EmbeddedKafka.start(null, SecurityProtocol.SASL_PLAINTEXT);
    }

    @AfterAll
    static void stopSecuredBroker() throws Exception {
        kafka.close();
    }

    @Test
    void aUserWithReadAclsArchivesEveryRecordExactlyOnceAndNoPasswordIsLogged() throws Exception {
        String topic = SharedStack.uniqueName("sasl");
        createTopicReadableBy(topic, topic);
        List<ArchiveRecord> produced = produce(topic, 2_000);
        ArchiverConfig config = config(topic, PASSWORD);
        try (CapturedLogs logs = CapturedLogs.start()) {
            new Preflight(Duration.ofSeconds(20), fileSystems()).check(config);
            JobClient job = JobLauncher.environment(config).executeAsync("archive " + topic);
            try {
                Jobs.awaitWhileRunning(job, "every record archived", Duration.ofMinutes(2),
                        () -> archivedCount(config.sinkPath(), PayloadFormats.BYTES) >= produced.size());
            } finally {
                Jobs.cancel(job);
            }
            assertThat(logs.containing(PASSWORD)).isEmpty();
        }
        assertExactlyOnce(config.sinkPath(), PayloadFormats.BYTES, produced);
    }

    @Test
    void aWrongPasswordFailsPreflightAtOnceNamingTheSettingWithoutThePassword() throws Exception {
        String topic = SharedStack.uniqueName("sasl-wrong");
        createTopicReadableBy(topic, topic);
        ArchiverConfig config = config(topic, WRONG_PASSWORD);
        try (CapturedLogs logs = CapturedLogs.start()) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> new Preflight(Duration.ofSeconds(30), fileSystems()).check(config))
                    .isInstanceOf(PreflightException.class)
                    .hasMessageContaining("refused the SASL credentials")
                    .hasMessageContaining("kafka.properties.sasl.jaas.config")
                    .hasMessageNotContaining(WRONG_PASSWORD);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
            assertThat(logs.containing(WRONG_PASSWORD)).isEmpty();
        }
    }

    @Test
    void aTopicTheUserMayNotReadFailsPreflightNamingTheTopicAndTheAclToGrant() throws Exception {
        String topic = SharedStack.uniqueName("sasl-denied");
        try (Admin admin = kafka.admin()) {
            admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic(topic, PARTITIONS, (short) 1)))
                    .all().get(30, TimeUnit.SECONDS);
        }
        ArchiverConfig config = config(topic, PASSWORD);
        long start = System.nanoTime();
        assertThatThrownBy(() -> new Preflight(Duration.ofSeconds(30), fileSystems()).check(config))
                .isInstanceOf(PreflightException.class)
                .hasMessageContaining("may not read")
                .hasMessageContaining(topic)
                .hasMessageContaining("Read");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void aGroupTheUserMayNotUseIsAWarningUnlessTheJobStartsFromItsCommittedOffsets() throws Exception {
        String topic = SharedStack.uniqueName("sasl-group");
        createTopicReadableBy(topic, "another-group");
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

    /** Creates {@code topic} and lets the user read it and use consumer group {@code group}. */
    private static void createTopicReadableBy(String topic, String group) throws Exception {
        try (Admin admin = kafka.admin()) {
            admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic(topic, PARTITIONS, (short) 1)))
                    .all().get(30, TimeUnit.SECONDS);
            String user = "User:" + EmbeddedKafka.USER;
            admin.createAcls(List.of(
                    new AclBinding(new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL),
                            new AccessControlEntry(user, "*", AclOperation.READ, AclPermissionType.ALLOW)),
                    new AclBinding(new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL),
                            new AccessControlEntry(user, "*", AclOperation.DESCRIBE_CONFIGS, AclPermissionType.ALLOW)),
                    new AclBinding(new ResourcePattern(ResourceType.GROUP, group, PatternType.LITERAL),
                            new AccessControlEntry(user, "*", AclOperation.READ, AclPermissionType.ALLOW))))
                    .all().get(30, TimeUnit.SECONDS);
        }
    }

    private static List<ArchiveRecord> produce(String topic, int count) throws Exception {
        Properties props = kafka.adminClientProperties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        List<ArchiveRecord> sent = new ArrayList<>();
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < count; i++) {
                ArchiveRecord r = TestRecords.record(topic, i % PARTITIONS, i, TestRecords.Timestamps.IN_ORDER);
                sent.add(r);
                acks.add(producer.send(TestRecords.toProducerRecord(r)));
            }
        }
        for (int i = 0; i < count; i++) {
            sent.get(i).setOffset(acks.get(i).get().offset());
        }
        return sent;
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
