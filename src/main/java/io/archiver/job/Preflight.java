package io.archiver.job;

import io.archiver.config.ArchiverConfig;
import io.archiver.config.CloseNames;
import io.archiver.config.UserFacingError;

import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static io.archiver.config.ArchiverOptions.KAFKA_BOOTSTRAP_SERVERS;
import static io.archiver.config.ArchiverOptions.KAFKA_TOPICS;
import static io.archiver.config.ArchiverOptions.SINK_PATH;

/**
 * Checks, before the job is submitted, that Kafka is reachable and the topics exist, and that the archive
 * root can be written (bucket exists, credentials allow writing), so a wrong setting fails within a bounded
 * time with a message that says what is wrong, instead of a job restarting forever. Nothing is left
 * behind: the write probe is a hidden object that is deleted again.
 */
public final class Preflight {

    private final Duration timeout;

    public Preflight(Duration timeout) {
        this.timeout = timeout;
    }

    public void check(ArchiverConfig config) {
        checkKafka(config);
        checkSink(config.sinkPath());
    }

    void checkKafka(ArchiverConfig config) {
        String servers = config.get(KAFKA_BOOTSTRAP_SERVERS);
        Properties props = config.kafkaClientProperties();
        props.setProperty(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, String.valueOf(timeout.toMillis()));
        props.setProperty(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, String.valueOf(timeout.toMillis()));
        try (Admin admin = Admin.create(props)) {
            admin.describeCluster().clusterId().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (!config.topics().isEmpty()) {
                checkTopics(admin, config.topics(), servers);
            }
        } catch (TimeoutException e) {
            throw new PreflightException(
                    "Cannot reach Kafka at '" + servers + "' within " + timeout.toSeconds() + " s. Check '"
                            + KAFKA_BOOTSTRAP_SERVERS.key() + "' and the security settings under 'kafka.properties.'.");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof org.apache.kafka.common.errors.TimeoutException) {
                throw new PreflightException(
                        "Cannot reach Kafka at '" + servers + "' within " + timeout.toSeconds() + " s. Check '"
                                + KAFKA_BOOTSTRAP_SERVERS.key() + "' and the security settings under 'kafka.properties.'.");
            }
            throw new PreflightException(
                    "Kafka at '" + servers + "' refused the archiver: " + cause + ". Check 'kafka.properties.' (security, ACLs).");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PreflightException("Interrupted while checking Kafka.");
        }
    }

    /** Fails naming every topic of {@code topics} that Kafka does not have, each with a close existing name. */
    private void checkTopics(Admin admin, List<String> topics, String servers)
            throws ExecutionException, InterruptedException, TimeoutException {
        Map<String, KafkaFuture<TopicDescription>> described = admin.describeTopics(topics).topicNameValues();
        List<String> missing = new ArrayList<>();
        for (Map.Entry<String, KafkaFuture<TopicDescription>> topic : described.entrySet()) {
            try {
                topic.getValue().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw e;
                }
                missing.add(topic.getKey());
            }
        }
        if (missing.isEmpty()) {
            return;
        }
        Set<String> existing = admin.listTopics().names().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        List<String> named = new ArrayList<>();
        for (String topic : missing) {
            named.add("'" + topic + "'" + CloseNames.closest(topic, existing).map(t -> " (did you mean '" + t + "'?)").orElse(""));
        }
        throw new PreflightException(String.format(
                "%s of '%s' %s not exist on '%s': %s. Create %s or fix '%s'.",
                missing.size() == 1 ? "A topic" : missing.size() + " topics", KAFKA_TOPICS.key(),
                missing.size() == 1 ? "does" : "do", servers, String.join(", ", named),
                missing.size() == 1 ? "it" : "them", KAFKA_TOPICS.key()));
    }

    void checkSink(String root) {
        Path probe = new Path(root + "/_archiver/preflight-" + UUID.randomUUID());
        try {
            FileSystem fs = probe.getFileSystem();
            try (FSDataOutputStream out = fs.create(probe, FileSystem.WriteMode.OVERWRITE)) {
                out.write("preflight".getBytes(StandardCharsets.UTF_8));
            }
            fs.delete(probe, false);
        } catch (Exception e) {
            throw new PreflightException(
                    "Cannot write to the archive at '" + root + "': " + rootCause(e)
                            + ". Check that the bucket exists, that the credentials (s3.access-key/s3.secret-key or the"
                            + " instance role) may write there, and '" + SINK_PATH.key() + "'.");
        }
    }

    private static String rootCause(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        String msg = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        int newline = msg.indexOf('\n');
        return newline > 0 ? msg.substring(0, newline) : msg;
    }

    /** A precondition of the job that does not hold; the message says what to fix. */
    public static final class PreflightException extends RuntimeException implements UserFacingError {
        private static final long serialVersionUID = 1L;

        PreflightException(String message) {
            super(message);
        }
    }
}
