package io.archiver.job;

import io.archiver.archive.ArchiveRoot;
import io.archiver.archive.UploadLifecycleRule;
import io.archiver.config.ArchiverConfig;
import io.archiver.config.PositionSpec;
import io.archiver.config.CloseNames;
import io.archiver.config.UserFacingError;
import io.archiver.fs.IoThreads;
import io.archiver.fs.S3BucketAccess;
import io.archiver.fs.S3EncryptionRequirement;
import io.archiver.fs.ProbeFileSystems;
import io.archiver.kafka.BootstrapAddresses;
import io.archiver.kafka.TopicDescriptions;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import software.amazon.awssdk.services.s3.S3Client;
import org.apache.flink.util.TimeUtils;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.archiver.config.SchemaRegistryOptions;
import io.archiver.config.TableOptions;
import io.archiver.table.ArchiveCatalog;
import io.archiver.table.TableSettings;
import io.archiver.record.PayloadFormats;
import io.archiver.registry.RegistryUnavailableException;
import io.archiver.registry.SchemaRegistryClient;
import io.archiver.registry.SchemaRegistrySettings;
import io.archiver.registry.UndecodablePayload;

import static io.archiver.config.SourceOptions.KAFKA_BOOTSTRAP_SERVERS;
import static io.archiver.config.SourceOptions.KAFKA_GROUP_ID;
import static io.archiver.config.SourceOptions.KAFKA_TOPICS;
import static io.archiver.config.JobOptions.PREFLIGHT_TIMEOUT;
import static io.archiver.config.SinkOptions.SINK_ORPHANED_UPLOADS_ABORT_AFTER;
import static io.archiver.config.SinkOptions.SINK_PATH;

/**
 * Checks, before the job is submitted, that Kafka is reachable and the topics exist, and that the archive
 * root can be written (bucket exists, credentials allow writing), so a wrong setting fails within a bounded
 * time with a message that says what is wrong, instead of a job restarting forever. Nothing is left
 * behind: the write probe is a hidden object that is deleted again.
 */
public final class Preflight {

    private static final Logger LOG = LoggerFactory.getLogger(Preflight.class);

    private static final Pattern ERROR_CODE = Pattern.compile("Error Code: (\\w+)");
    /** The value a {@link NumberFormatException} quotes. */
    private static final Pattern QUOTED = Pattern.compile("\"([^\"]*)\"");
    /** Per bootstrap address: a refused or unknown address is known at once, an unanswered one within this. */
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

    private final Duration timeout;
    private final Configuration fileSystems;

    /** Checks answering within {@code timeout} each; the archive's file system configured as {@code fileSystems} says. */
    public Preflight(Duration timeout, Configuration fileSystems) {
        this.timeout = timeout;
        this.fileSystems = fileSystems;
    }

    public void check(ArchiverConfig config) {
        checkKafka(config);
        checkSchemaRegistry(config);
        checkEncryption(config);
        checkSink(ArchiveRoot.of(config));
        checkUploadLifecycle(ArchiveRoot.of(config), config.get(SINK_ORPHANED_UPLOADS_ABORT_AFTER));
        checkTables(config);
    }

    /**
     * With {@code table.format: iceberg}: the catalog answers, and each listed topic's table exists or may be created
     * ({@code table.create}). Topics of a pattern are checked at their first commit.
     */
    void checkTables(ArchiverConfig config) {
        Optional<TableSettings> settings = TableSettings.of(config);
        if (settings.isEmpty()) {
            return;
        }
        try {
            String found = withinTimeout(() -> {
                try (ArchiveCatalog catalog = ArchiveCatalog.open(settings.get())) {
                    List<String> missing = new ArrayList<>();
                    for (String topic : config.topics()) {
                        if (!catalog.exists(topic)) {
                            missing.add(catalog.identifier(topic).toString());
                        }
                    }
                    if (!missing.isEmpty() && !settings.get().create()) {
                        throw new PreflightException("Table(s) " + String.join(", ", missing) + " do not exist in the " + settings.get()
                                + " and '" + TableOptions.TABLE_CREATE.key() + "' is false: create them, or set '"
                                + TableOptions.TABLE_CREATE.key() + ": true'.");
                    }
                    return (config.topics().size() - missing.size()) + " of " + config.topics().size() + " topics' tables exist"
                            + (missing.isEmpty() ? "" : ", " + String.join(", ", missing) + " created at the first commit");
                }
            });
            LOG.info("Pre-flight: the {} answers: {}", settings.get(), found);
        } catch (TimeoutException e) {
            throw new PreflightException("The Iceberg catalog at '" + settings.get().uri() + "' did not answer within "
                    + timeout.toSeconds() + " s. Check '" + TableOptions.TABLE_CATALOG_URI.key() + "' and that this machine reaches it, or raise '"
                    + PREFLIGHT_TIMEOUT.key() + "'.");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof PreflightException p) {
                throw p;
            }
            throw new PreflightException("Cannot use the Iceberg catalog at '" + settings.get().uri() + "': " + rootCause(e)
                    + ". Check '" + TableOptions.TABLE_CATALOG_URI.key() + "' and its credentials ('"
                    + TableOptions.TABLE_CATALOG_USER.key() + "'/'" + TableOptions.TABLE_CATALOG_PASSWORD.key() + "' for jdbc, '"
                    + TableOptions.TABLE_CATALOG_CREDENTIAL.key() + "' or '" + TableOptions.TABLE_CATALOG_TOKEN.key() + "' for rest).");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PreflightException("Interrupted while checking the Iceberg catalog.");
        }
    }

    /** When payloads are decoded with a Schema Registry: one of its URLs answers, and accepts the credentials. */
    void checkSchemaRegistry(ArchiverConfig config) {
        SchemaRegistrySettings registry = SchemaRegistrySettings.of(config);
        if (registry == null || !PayloadFormats.of(config).decoded()) {
            return;
        }
        try {
            LOG.info("Pre-flight: the {} {}", registry, SchemaRegistryClient.check(registry, timeout));
        } catch (UndecodablePayload e) {
            throw new PreflightException("The Schema Registry refused the archiver: " + e.getMessage() + ". Check '"
                    + SchemaRegistryOptions.SCHEMA_REGISTRY_URL.key() + "' (the Confluent-compatible API's base URL, e.g. http://registry:8081 "
                    + "or http://apicurio:8080/apis/ccompat/v7) and its credentials.");
        } catch (RegistryUnavailableException e) {
            String why = hasCause(e, java.net.ConnectException.class) ? "connection refused"
                    : hasCause(e, java.net.http.HttpTimeoutException.class) ? "no answer within " + timeout.toSeconds() + " s" : rootCause(e);
            String check = hasCause(e, javax.net.ssl.SSLException.class)
                    ? "The TLS handshake failed: check '" + SchemaRegistryOptions.SCHEMA_REGISTRY_TRUSTSTORE.key()
                            + "' (it must hold the CA that signed the registry's certificate) and, if the registry asks for a client certificate, '"
                            + SchemaRegistryOptions.SCHEMA_REGISTRY_KEYSTORE.key() + "'."
                    : "Check '" + SchemaRegistryOptions.SCHEMA_REGISTRY_URL.key() + "'.";
            throw new PreflightException("Cannot reach the Schema Registry at '" + String.join(", ", registry.urls()) + "': "
                    + why + ". " + check);
        }
    }

    /** The S3 file systems of every path the job writes apply the encryption the configuration requires. */
    void checkEncryption(ArchiverConfig config) {
        S3EncryptionRequirement required = S3EncryptionRequirement.of(config);
        if (!required.isRequired()) {
            return; // no file system to open for a check
        }
        for (String written : S3EncryptionRequirement.writtenPaths(config)) {
            Path path = new Path(written);
            Optional<FileSystem> own = Optional.empty();
            try {
                own = ProbeFileSystems.withoutRetries(path.toUri(), fileSystems, timeout);
                required.verify(path, own.isPresent() ? own.get() : path.getFileSystem());
            } catch (S3EncryptionRequirement.EncryptionNotApplied e) {
                throw new PreflightException(e.getMessage());
            } catch (IOException e) {
                throw new PreflightException(sinkProblem(written, e));
            } finally {
                own.ifPresent(ProbeFileSystems::close);
            }
        }
    }

    void checkKafka(ArchiverConfig config) {
        String servers = config.get(KAFKA_BOOTSTRAP_SERVERS);
        BootstrapAddresses.noneReachable(servers, CONNECT_TIMEOUT).ifPresent(why -> {
            throw new PreflightException("Cannot reach Kafka at '" + servers + "': " + why + ". Check '" + KAFKA_BOOTSTRAP_SERVERS.key() + "'.");
        });
        Properties props = config.kafkaClientProperties();
        props.setProperty(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, String.valueOf(timeout.toMillis()));
        props.setProperty(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, String.valueOf(timeout.toMillis()));
        try (Admin admin = Admin.create(props)) {
            admin.describeCluster().clusterId().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (!config.topics().isEmpty()) {
                checkTopics(admin, config.topics(), servers);
                Map<String, TopicDescription> described = admin.describeTopics(config.topics(),
                        new DescribeTopicsOptions().includeAuthorizedOperations(true)).allTopicNames().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                checkReadable(described, config, servers);
                warnOfPartitionsWithoutLeader(described);
            }
            checkGroup(admin, config, servers);
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
            throw new PreflightException(refusal(servers, config, cause));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PreflightException("Interrupted while checking Kafka.");
        }
    }

    /**
     * What Kafka's refusal means and which setting fixes it. Never quotes the client settings themselves: the SASL
     * JAAS configuration holds a password.
     */
    static String refusal(String servers, ArchiverConfig config, Throwable cause) {
        if (cause instanceof SaslAuthenticationException) {
            return "Kafka at '" + servers + "' refused the SASL credentials (mechanism "
                    + config.kafkaProperties().getProperty("sasl.mechanism", "GSSAPI") + "): check the user name and password in "
                    + "'kafka.properties.sasl.jaas.config' and 'kafka.properties.sasl.mechanism'.";
        }
        if (cause instanceof SslAuthenticationException) {
            return "The TLS handshake with Kafka at '" + servers + "' failed (" + cause.getMessage() + "): the broker's certificate "
                    + "must be trusted by 'kafka.properties.ssl.truststore.location' (or its PEM form), and a client certificate "
                    + "the broker requires must be in 'kafka.properties.ssl.keystore.location'.";
        }
        if (cause instanceof TopicAuthorizationException denied) {
            return "The Kafka user may not read topic(s) " + (denied.unauthorizedTopics().isEmpty() ? config.topics()
                    : new java.util.TreeSet<>(denied.unauthorizedTopics())) + " on '" + servers + "'. Grant it Read (which includes "
                    + "Describe), e.g. kafka-acls.sh --add --allow-principal User:<user> --operation Read --topic <topic>.";
        }
        if (cause instanceof GroupAuthorizationException) {
            return "The Kafka user may not use the consumer group '" + config.get(KAFKA_GROUP_ID) + "' ('" + KAFKA_GROUP_ID.key()
                    + "') on '" + servers + "'. Grant it Read on the group, e.g. kafka-acls.sh --add --allow-principal User:<user> "
                    + "--operation Read --group <group>.";
        }
        if (cause instanceof AuthenticationException || cause instanceof AuthorizationException) {
            return "Kafka at '" + servers + "' refused the archiver (" + cause.getClass().getSimpleName() + "): check the security "
                    + "settings under 'kafka.properties.' and the ACLs of its user.";
        }
        return "Kafka at '" + servers + "' refused the archiver: " + cause + ". Check 'kafka.properties.' (security, ACLs).";
    }

    /**
     * The consumer group holds the offsets committed for lag monitoring, and those {@code kafka.start=committed}
     * starts from: without access to it, a job that starts there fails here, any other gets a warning (its
     * offsets commits fail; the archive's position lives in checkpoints and the archive).
     */
    private void checkGroup(Admin admin, ArchiverConfig config, String servers)
            throws ExecutionException, InterruptedException, TimeoutException {
        try {
            admin.listConsumerGroupOffsets(config.get(KAFKA_GROUP_ID)).partitionsToOffsetAndMetadata()
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof GroupAuthorizationException) || config.start().kind() == PositionSpec.Kind.COMMITTED) {
                throw e;
            }
            LOG.warn("{} The job runs without: its offset commits for lag monitoring fail.", refusal(servers, config, e.getCause()));
        }
    }

    /** Fails naming the topics the user may describe but not read (a broker that reports what it authorizes). */
    private void checkReadable(Map<String, TopicDescription> described, ArchiverConfig config, String servers) {
        List<String> unreadable = new ArrayList<>();
        described.forEach((topic, d) -> {
            if (d.authorizedOperations() != null && !d.authorizedOperations().contains(AclOperation.READ)) {
                unreadable.add(topic);
            }
        });
        if (!unreadable.isEmpty()) {
            throw new PreflightException(refusal(servers, config, new TopicAuthorizationException("not readable", new java.util.HashSet<>(unreadable))));
        }
    }

    /**
     * Names the partitions Kafka serves no leader for now (every replica down, or none in sync without unclean election):
     * the job starts anyway and archives them once Kafka serves them, and the archive lag knows nothing of them until it
     * has archived some of each. Only a warning: a broker may be restarting.
     */
    static void warnOfPartitionsWithoutLeader(Map<String, TopicDescription> described) {
        List<String> leaderless = new ArrayList<>();
        described.forEach((topic, d) -> d.partitions().forEach(p -> {
            if (p.leader() == null || p.leader().isEmpty()) {
                leaderless.add(topic + "-" + p.partition());
            }
        }));
        if (!leaderless.isEmpty()) {
            Collections.sort(leaderless);
            LOG.warn("Kafka serves no leader for {} now ({} of them): none of their replicas is up and in sync. The job starts and archives the "
                    + "other partitions; these are archived once Kafka serves them again.", String.join(", ", leaderless), leaderless.size());
        }
    }

    /** Fails naming every topic of {@code topics} that Kafka does not have, each with a close existing name. */
    private void checkTopics(Admin admin, List<String> topics, String servers)
            throws ExecutionException, InterruptedException, TimeoutException {
        List<String> missing = TopicDescriptions.of(admin, topics, timeout).missing();
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

    /**
     * Writes and deletes a hidden object under the archive root with a file system that does not retry
     * ({@link ProbeFileSystems}), within the timeout: a refused credential, a missing bucket or an endpoint
     * that does not answer fail here, each with what to check.
     */
    void checkSink(ArchiveRoot root) {
        Path probe = root.writeProbe();
        try {
            withinTimeout(() -> {
                probeWrite(probe);
                return null;
            });
        } catch (TimeoutException e) {
            throw new PreflightException(
                    "The archive at '" + root + "' did not answer within " + timeout.toSeconds() + " s. Check the S3 endpoint "
                            + "(s3.endpoint) and that this machine reaches it, or raise '" + PREFLIGHT_TIMEOUT.key() + "'.");
        } catch (ExecutionException e) {
            throw new PreflightException(sinkProblem(root.uri(), e.getCause()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PreflightException("Interrupted while checking the archive.");
        }
    }

    /** {@code call}'s answer, asked on a thread of its own and given up after the pre-flight timeout. */
    private <T> T withinTimeout(Callable<T> call) throws TimeoutException, ExecutionException, InterruptedException {
        ExecutorService thread = Executors.newSingleThreadExecutor(IoThreads.daemon("archive-preflight"));
        Future<T> answer = thread.submit(call);
        try {
            return answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } finally {
            answer.cancel(true);
            thread.shutdownNow();
        }
    }

    /**
     * Says what bounds the multipart uploads killed or cancelled runs leave under an S3 archive: a lifecycle rule of
     * the bucket, the job's own sweep after {@code sweepAfter}, or (a warning) neither. Never fails the start: a store
     * without lifecycle rules, or that does not answer, leaves it to the sweep.
     */
    void checkUploadLifecycle(ArchiveRoot root, Duration sweepAfter) {
        String bucket = root.bucket();
        if (bucket == null) {
            return;
        }
        UploadLifecycleRule.Status status;
        try {
            status = withinTimeout(() -> {
                try (S3Client client = S3BucketAccess.ofFlinkSettings(fileSystems, bucket).client()) {
                    return new UploadLifecycleRule(client).check(root.uri());
                }
            });
        } catch (TimeoutException | ExecutionException e) {
            status = UploadLifecycleRule.Status.unknown(e instanceof TimeoutException ? "no answer within " + timeout.toSeconds() + " s"
                    : String.valueOf(e.getCause().getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        String sweep = sweepAfter.isZero() ? null : "the job aborts orphaned uploads itself once they are "
                + TimeUtils.formatWithHighestUnit(sweepAfter) + " old (" + SINK_ORPHANED_UPLOADS_ABORT_AFTER.key() + ")";
        switch (status.kind()) {
            case COVERED -> LOG.info("Pre-flight: lifecycle rule '{}' of bucket {} aborts incomplete uploads under {} {} day(s) after they "
                    + "start{}", status.ruleId(), bucket, root, status.days(), sweep == null ? "" : "; " + sweep + " too");
            case NOT_COVERED -> {
                if (sweep == null) {
                    LOG.warn("Pre-flight: nothing aborts the incomplete uploads killed or cancelled runs leave under {}: no lifecycle rule of "
                            + "bucket {} covers it and {} is 0. Install one (archiver cleanup --install-lifecycle-rule) or set {}; until then "
                            + "only cleanup --apply removes them.", root, bucket, SINK_ORPHANED_UPLOADS_ABORT_AFTER.key(),
                            SINK_ORPHANED_UPLOADS_ABORT_AFTER.key());
                } else {
                    LOG.info("Pre-flight: no lifecycle rule of bucket {} aborts incomplete uploads under {}; {}", bucket, root, sweep);
                }
            }
            case UNKNOWN -> {
                if (sweep == null) {
                    LOG.warn("Pre-flight: bucket {} does not say whether a lifecycle rule aborts incomplete uploads under {} ({}), and {} is 0: "
                            + "orphaned uploads may accumulate until cleanup --apply.", bucket, root, status.reason(),
                            SINK_ORPHANED_UPLOADS_ABORT_AFTER.key());
                } else {
                    LOG.info("Pre-flight: bucket {} does not say whether a lifecycle rule aborts incomplete uploads under {} ({}); {}", bucket,
                            root, status.reason(), sweep);
                }
            }
        }
    }

    private void probeWrite(Path probe) throws IOException {
        Optional<FileSystem> own = ProbeFileSystems.withoutRetries(probe.toUri(), fileSystems, timeout);
        FileSystem fs = own.isPresent() ? own.get() : probe.getFileSystem();
        try {
            try (FSDataOutputStream out = fs.create(probe, FileSystem.WriteMode.OVERWRITE)) {
                out.write("preflight".getBytes(StandardCharsets.UTF_8));
            }
            fs.delete(probe, false);
        } finally {
            own.ifPresent(ProbeFileSystems::close);
        }
    }

    private String sinkProblem(String root, Throwable failure) {
        String cause = rootCause(failure);
        if (hasCause(failure, NumberFormatException.class)) {
            return unreadableSetting(root, cause);
        }
        Matcher code = ERROR_CODE.matcher(cause);
        String errorCode = code.find() ? code.group(1) : "";
        if (cause.contains("Status Code: 403") || errorCode.equals("AccessDenied") || errorCode.equals("SignatureDoesNotMatch")
                || errorCode.equals("InvalidAccessKeyId") || hasCause(failure, java.nio.file.AccessDeniedException.class)) {
            return "The credentials may not write to the archive at '" + root + "': S3 answered 403"
                    + (errorCode.isEmpty() ? "" : " (" + errorCode + ")") + ". Check s3.access-key and s3.secret-key (as flink.s3.* "
                    + "for a job started with java, in the cluster's configuration for a cluster), or the role the job runs "
                    + "with, and that they may write under '" + SINK_PATH.key() + "'.";
        }
        return "Cannot write to the archive at '" + root + "': " + cause
                + ". Check that the bucket exists, that the credentials (s3.access-key/s3.secret-key or the"
                + " instance role) may write there, and '" + SINK_PATH.key() + "'.";
    }

    /**
     * A file system setting whose value the S3 file system could not parse as a number ({@code For input string:
     * "16mb"}): named, with the fix, instead of advice about buckets and credentials.
     */
    private String unreadableSetting(String root, String cause) {
        Matcher quoted = QUOTED.matcher(cause);
        String value = quoted.find() ? quoted.group(1) : null;
        List<String> keys = new ArrayList<>();
        fileSystems.toMap().forEach((key, v) -> {
            if (v.equals(value) && !GlobalConfiguration.isSensitive(key)) {
                keys.add(key);
            }
        });
        Collections.sort(keys);
        String which = keys.isEmpty() ? "a file system setting (s3.*)" : String.join(", ", keys) + " = \"" + value + "\"";
        return "Cannot write to the archive at '" + root + "': the S3 file system cannot read " + which + " (" + cause + "). Give it"
                + " as a plain number (sizes in bytes, without a unit), as flink." + (keys.isEmpty() ? "s3.*" : keys.get(0))
                + " for a job started with java, in the cluster's configuration for a cluster.";
    }

    private static boolean hasCause(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
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
