package io.archiver.job;

import io.archiver.archive.ArchiveRoot;
import io.archiver.capture.TopicIdentities;
import io.archiver.config.ArchiverConfig;
import io.archiver.fs.FileSystemPlugins;
import io.archiver.fs.S3EncryptionRequirement;
import io.archiver.fs.S3Retries;
import io.archiver.fencing.ArchiveLease;

import org.apache.kafka.clients.admin.Admin;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptionsInternal;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.streaming.api.environment.LocalStreamEnvironment;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.io.File;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;

import static io.archiver.config.JobOptions.JOB_NAME;
import static io.archiver.config.JobOptions.PREFLIGHT_TIMEOUT;

/**
 * Creates the execution environment of the archiver and adds its dataflow. Submitted with {@code flink
 * run}, the environment is the cluster's; started with {@code java}, it is a local Flink, for which the
 * filesystem plugins (the S3 filesystem) are loaded from {@code FLINK_PLUGINS_DIR} with the {@code flink.*}
 * settings, as a cluster would.
 */
public final class JobLauncher {

    private JobLauncher() {}

    /**
     * The environment with the archiver's dataflow, after the preflight checks (unless {@code
     * preflight.timeout} is 0) and with the archive's lease taken for this run ({@link ArchiveLease}).
     */
    public static StreamExecutionEnvironment environment(ArchiverConfig config) throws IOException, InterruptedException {
        return launch(config, notice -> {}).environment();
    }

    /**
     * {@link #environment}, also telling {@code notices} what the person who submits it waits for (the lease of
     * a job that still holds the archive), and returning this run's lease.
     */
    public static Launch launch(ArchiverConfig config, Consumer<String> notices) throws IOException, InterruptedException {
        Configuration conf = JobSettings.of(config);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        Configuration fileSystems = Configuration.fromMap(env.getConfiguration().toMap());
        if (isLocal(env)) {
            S3EncryptionRequirement.fileSystemSettings(config).forEach(fileSystems::setString);
            initializeFileSystems(fileSystems);
        } else {
            ClusterOnlySettings.refuseOnCluster(config.flinkSettings().toMap());
        }
        Duration preflight = config.get(PREFLIGHT_TIMEOUT);
        if (!preflight.isZero()) {
            new Preflight(preflight, fileSystems).check(config);
        }
        // before the first object this run writes (the lease), also when pre-flight is off
        ArchiveRoot root = ArchiveRoot.of(config);
        S3EncryptionRequirement.of(config).verify(root.path());
        TopicIdentities topics = topicIdentities(config, root);
        ArchiveLease lease = new ArchiveLease(
                root, UUID.randomUUID().toString(), config.get(JOB_NAME), config.leaseTimeout());
        Optional<String> fixedJobId = env.getConfiguration().getOptional(PipelineOptionsInternal.PIPELINE_FIXED_JOB_ID);
        Optional<ArchiveLease> held = Optional.empty();
        if (fixedJobId.isPresent()) {
            // the job's id is known before it is submitted (application mode with HA, the Kubernetes operator): the
            // lease names it from the start, and a launch of that same job again (a JobManager failover) keeps it
            lease = lease.forJob(fixedJobId.get());
            held = lease.heldByThisJob();
        }
        if (held.isPresent()) {
            lease = held.get();
        } else if (isLocal(env)) {
            lease.acquire(ArchiveLease.EndedJobs.UNKNOWN, notices);
        } else {
            try (ClusterJobs cluster = new ClusterJobs(env.getConfiguration())) {
                lease.acquire(cluster, notices);
            }
        }
        topics.recordNew();
        ArchiverJob.build(env, config, lease);
        return new Launch(env, lease);
    }

    /** The archived topics' ids checked against those the archive recorded (a recreated topic is refused). */
    private static TopicIdentities topicIdentities(ArchiverConfig config, ArchiveRoot root) throws IOException {
        try (Admin admin = Admin.create(config.kafkaClientProperties())) {
            List<String> topics = config.topics();
            if (topics.isEmpty()) {
                Pattern pattern = config.topicPattern().orElseThrow();
                topics = admin.listTopics().names().get(60, TimeUnit.SECONDS).stream().filter(t -> pattern.matcher(t).matches()).sorted().toList();
            }
            return TopicIdentities.check(root, admin, topics);
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IOException("Cannot list the topics matching " + config.topicPattern().orElseThrow() + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("Interrupted while listing topics", e);
        }
    }

    /** An environment with the archiver's dataflow, and the lease its run holds. */
    public record Launch(StreamExecutionEnvironment environment, ArchiveLease lease) {}

    /**
     * The S3 plugin's AWS client warns through java.util.logging, on the console of any JVM that loads it, that
     * it has no {@code mime.types} file (it then guesses content types, which the archive does not need), and
     * prints a stack trace announcing its own end of support, which Flink's plugin and not the archiver chose.
     */
    private static final java.util.logging.Logger MIME_TYPES =
            java.util.logging.Logger.getLogger("com.amazonaws.services.s3.internal.Mimetypes");

    private static void quietFileSystemLogging() {
        MIME_TYPES.setLevel(java.util.logging.Level.SEVERE);
        if (System.getProperty("aws.java.v1.disableDeprecationAnnouncement") == null) {
            System.setProperty("aws.java.v1.disableDeprecationAnnouncement", "true");
        }
    }

    /** True when this JVM runs the job itself (not submitted to a cluster through Flink's client). */
    public static boolean isLocal(StreamExecutionEnvironment env) {
        return env instanceof LocalStreamEnvironment;
    }

    /**
     * Loads Flink's filesystems, plugins included, with {@code conf}: what a cluster does at start-up and a
     * JVM that runs a job or reads an archive by itself must do too.
     */
    public static void initializeFileSystems(Configuration conf) {
        quietFileSystemLogging();
        String pluginsDir = System.getenv("FLINK_PLUGINS_DIR");
        if (pluginsDir == null || !new File(pluginsDir).isDirectory()) {
            throw new IllegalStateException(
                    "FLINK_PLUGINS_DIR is not set to a folder holding the s3-fs-hadoop plugin (got '" + pluginsDir
                            + "'). `mvn package` puts it in target/plugins; export FLINK_PLUGINS_DIR=target/plugins.");
        }
        Configuration withRetries = S3Retries.withDefaults(conf);
        FileSystem.initialize(withRetries, FileSystemPlugins.of(withRetries));
    }
}
