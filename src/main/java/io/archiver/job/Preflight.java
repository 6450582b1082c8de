package io.archiver.job;

import io.archiver.config.ArchiverConfig;

import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Properties;
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
                admin.describeTopics(config.topics()).allTopicNames().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (TimeoutException e) {
            throw new PreflightException(
                    "Cannot reach Kafka at '" + servers + "' within " + timeout.toSeconds() + " s. Check '"
                            + KAFKA_BOOTSTRAP_SERVERS.key() + "' and the security settings under 'kafka.properties.'.");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof UnknownTopicOrPartitionException) {
                throw new PreflightException(
                        "A topic of '" + KAFKA_TOPICS.key() + "' does not exist on '" + servers + "': "
                                + cause.getMessage() + " Create the topic or fix '" + KAFKA_TOPICS.key() + "'.");
            }
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
    public static final class PreflightException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        PreflightException(String message) {
            super(message);
        }
    }
}
