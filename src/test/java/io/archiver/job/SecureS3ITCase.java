package io.archiver.job;

import io.archiver.archive.ArchiveRoot;
import io.archiver.archive.ArchiveVerifier;
import io.archiver.archive.S3IncompleteUploads;
import io.archiver.config.ArchiverConfig;
import io.archiver.fs.S3EncryptionRequirement;
import io.archiver.fs.S3EncryptionRequirement.EncryptionNotApplied;
import io.archiver.job.Preflight.PreflightException;
import io.archiver.local.EmbeddedS3;
import io.archiver.local.EncryptionRecordingBlobStore;
import io.archiver.local.EncryptionRecordingBlobStore.Write;
import io.archiver.local.TlsMaterial;
import io.archiver.fencing.ArchiveLease;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;
import io.archiver.testutils.Jobs;
import io.archiver.testutils.KafkaTopicReader;
import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TestRecords;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.ExceptionUtils;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static io.archiver.testutils.ArchiveAssertions.archivedCount;
import static io.archiver.testutils.ArchiveAssertions.assertExactlyOnce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The archive in a bucket served over HTTPS by a certificate of a private CA (trusted through the JVM's trust
 * store, as a cluster's TaskManagers would be), with {@code sink.s3.encryption: sse-kms} and a key id: the
 * committed records of a transactional topic archived exactly once, and every request that reached the S3
 * server creating an object (archive files, position records, the lease, dead letters, checkpoints) carried
 * the SSE-KMS headers with the key. A job that requires encryption the file systems do not apply is refused
 * before it writes anything: at launch, at pre-flight, and by the sink itself on a TaskManager.
 */
@ExtendWith(SharedStack.class)
@Isolated
class SecureS3ITCase {

    private static final String BUCKET = "archive-tls";
    private static final String KMS_KEY = "arn:aws:kms:eu-west-1:111122223333:key/archiver-test-key";
    private static final String STORE_PASSWORD = "store-password-" + UUID.randomUUID();
    private static final String INVALID_JSON = "{not json";
    private static final int PARTITIONS = 2;

    private static final Map<String, String> previousTrust = new HashMap<>();

    private static EmbeddedS3 s3;
    private static EncryptionRecordingBlobStore requests;
    private static Map<String, String> bucketSettings;

    @BeforeAll
    static void startHttpsS3(@TempDir java.nio.file.Path dir) throws Exception {
        TlsMaterial tls = TlsMaterial.create(dir.resolve("tls"), STORE_PASSWORD, "unused");
        // how Flink's S3 file system trusts a private CA: the JVM's trust store (env.java.opts on a cluster)
        Map<String, String> trust = Map.of("javax.net.ssl.trustStore", tls.trustStore().toString(),
                "javax.net.ssl.trustStorePassword", STORE_PASSWORD, "javax.net.ssl.trustStoreType", "PKCS12");
        trust.forEach((key, value) -> previousTrust.put(key, System.setProperty(key, value)));
        s3 = EmbeddedS3.startTls(dir.resolve("s3"), tls, store -> requests = new EncryptionRecordingBlobStore(store));
        s3.createBucket(BUCKET);
        bucketSettings = Map.of(
                "s3.bucket." + BUCKET + ".endpoint", s3.endpoint().toString(),
                "s3.bucket." + BUCKET + ".connection.ssl.enabled", "true");
    }

    @AfterAll
    static void stopHttpsS3() throws Exception {
        SharedStack.get().initializeFileSystems(Map.of());
        s3.close();
        previousTrust.forEach((key, previous) -> {
            if (previous == null) {
                System.clearProperty(key);
            } else {
                System.setProperty(key, previous);
            }
        });
    }

    @Test
    void everyObjectOfAnArchiveOverHttpsIsWrittenWithTheKmsKeyAndTheCommittedRecordsExactlyOnce() throws Exception {
        String topic = SharedStack.uniqueName("sse-kms");
        SharedStack.get().kafka().createTopic(topic, PARTITIONS);
        String bootstrap = SharedStack.get().kafka().bootstrapServers();
        TestRecords.produceTransactions(bootstrap, topic, PARTITIONS, 0, 2_000, 100, 3);
        try (KafkaProducer<byte[], byte[]> producer = TestRecords.producer(bootstrap)) {
            for (int i = 0; i < 3; i++) { // not JSON: dead letters
                producer.send(new ProducerRecord<>(topic, i % PARTITIONS, null, INVALID_JSON.getBytes(StandardCharsets.UTF_8))).get();
            }
        }
        List<ArchiveRecord> truth = KafkaTopicReader.readAll(bootstrap, topic).stream()
                .filter(Predicate.not(SecureS3ITCase::isInvalidJson)).toList();

        Map<String, String> settings = SharedStack.get().jobSettings(topic, topic);
        String root = "s3://" + BUCKET + "/" + topic;
        settings.put("sink.path", root);
        settings.put("checkpoint.dir", root + "-checkpoints");
        settings.put("record.value.format", "json");
        settings.put("errors.policy", "dead-letter");
        settings.put("sink.s3.encryption", "sse-kms");
        settings.put("sink.s3.kms-key-id", KMS_KEY);
        ArchiverConfig config = ArchiverConfig.of(settings);
        // what the command line applies to a job it runs itself; an operator puts the same in a cluster's configuration
        Map<String, String> fileSystems = new HashMap<>(bucketSettings);
        fileSystems.putAll(S3EncryptionRequirement.fileSystemSettings(config));
        assertThat(fileSystems).containsEntry("s3.bucket." + BUCKET + ".encryption.algorithm", "SSE-KMS")
                .containsEntry("s3.bucket." + BUCKET + ".encryption.key", KMS_KEY);
        SharedStack.get().initializeFileSystems(fileSystems);

        PayloadFormats formats = PayloadFormats.of(config);
        JobClient job = JobLauncher.environment(config).executeAsync("archive " + topic);
        try {
            Jobs.awaitWhileRunning(job, "every committed record archived and a checkpoint after it", Duration.ofMinutes(2),
                    () -> archivedCount(root, formats) >= truth.size() && written(root + "-checkpoints/").size() > 2);
        } finally {
            Jobs.cancel(job);
        }
        try (S3IncompleteUploads lister = S3IncompleteUploads.fromSettings(fileSystems(), BUCKET)) {
            assertExactlyOnce(new ArchiveVerifier(formats, lister), formats, root, truth, false);
        }

        List<Write> writes = written(root);
        assertThat(kinds(writes, "/topic=")).as("archive files").isNotEmpty()
                .allMatch(w -> w.kind().equals("CreateMultipartUpload") || w.kind().equals("PutObject"));
        assertThat(kinds(writes, "/_archiver/subtask-positions/")).as("position records").isNotEmpty();
        assertThat(kinds(writes, "/_archiver/lease.json")).as("lease").isNotEmpty();
        assertThat(kinds(writes, "/_dead-letter/")).as("dead letters").isNotEmpty();
        assertThat(written(root + "-checkpoints/")).as("checkpoints").isNotEmpty();
        assertThat(requests.writes()).filteredOn(w -> w.key().startsWith(topic))
                .as("every object-creating request for this archive")
                .allSatisfy(w -> {
                    assertThat(w.encryption()).as(w.kind() + " " + w.key()).isEqualTo("aws:kms");
                    assertThat(w.kmsKeyId()).as(w.kind() + " " + w.key()).isEqualTo(KMS_KEY);
                });
    }

    @Test
    void aJobRequiringEncryptionTheFileSystemsDoNotApplyIsRefusedBeforeItWritesAnything() throws Exception {
        SharedStack.get().initializeFileSystems(bucketSettings); // HTTPS, but no encryption settings
        String topic = SharedStack.uniqueName("sse-missing");
        SharedStack.get().kafka().createTopic(topic, 1);
        Map<String, String> settings = SharedStack.get().jobSettings(topic, topic);
        String root = "s3://" + BUCKET + "/" + topic;
        settings.put("sink.path", root);
        settings.put("sink.s3.encryption", "sse-kms");
        settings.put("sink.s3.kms-key-id", KMS_KEY);
        settings.put("restart.strategy", "none");
        ArchiverConfig config = ArchiverConfig.of(settings);
        String fix = "s3.encryption.algorithm: SSE-KMS and s3.encryption.key: " + KMS_KEY;

        assertThatThrownBy(() -> JobLauncher.environment(config))
                .isInstanceOf(EncryptionNotApplied.class)
                .hasMessageContaining("encrypts with no encryption setting")
                .hasMessageContaining(fix);
        assertThatThrownBy(() -> new Preflight(Duration.ofSeconds(30), fileSystems()).check(config))
                .isInstanceOf(PreflightException.class)
                .hasMessageContaining(fix);

        // a TaskManager whose settings differ from the submitting side's: the sink refuses to start
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(JobSettings.of(config));
        ArchiverJob.build(env, config, new ArchiveLease(ArchiveRoot.of(root), UUID.randomUUID().toString(), "sse-missing", Duration.ofSeconds(3)));
        JobClient job = env.executeAsync("sse-missing");
        Throwable failure = null;
        try {
            job.getJobExecutionResult().get(2, TimeUnit.MINUTES);
        } catch (Exception e) {
            failure = e;
        }
        assertThat(failure).as("the job fails").isNotNull();
        assertThat(ExceptionUtils.findThrowable(failure, EncryptionNotApplied.class))
                .as("its cause").hasValueSatisfying(e -> assertThat(e.getMessage()).contains(fix));
        assertThat(written(root)).as("objects written under " + root).isEmpty();
    }

    /** The shared S3 server's settings with this bucket's on top, without encryption. */
    private static Configuration fileSystems() {
        Configuration conf = new Configuration();
        SharedStack.get().s3().flinkSettings().forEach(conf::setString);
        bucketSettings.forEach(conf::setString);
        return conf;
    }

    private static boolean isInvalidJson(ArchiveRecord record) {
        return record.getValue() != null && INVALID_JSON.equals(new String(record.getValue(), StandardCharsets.UTF_8));
    }

    /** The recorded object-creating requests under {@code prefix} (s3://bucket/key-prefix). */
    private static List<Write> written(String prefix) {
        String keyPrefix = prefix.substring(("s3://" + BUCKET + "/").length());
        return requests.writes().stream().filter(w -> w.key().startsWith(keyPrefix)).toList();
    }

    private static List<Write> kinds(List<Write> writes, String keyPart) {
        return writes.stream().filter(w -> ("/" + w.key()).contains(keyPart)).toList();
    }
}
