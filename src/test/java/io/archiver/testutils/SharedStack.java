package io.archiver.testutils;

import io.archiver.archive.ArchiveVerifier;
import io.archiver.archive.IncompleteUploads;
import io.archiver.archive.S3IncompleteUploads;
import io.archiver.job.JobLauncher;
import io.archiver.local.EmbeddedKafka;
import io.archiver.local.EmbeddedS3;
import io.archiver.local.EmbeddedServers;
import io.archiver.local.EmbeddedSchemaRegistry;
import io.archiver.record.PayloadFormats;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.util.FileUtils;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * One real Kafka broker, one real S3-compatible server, one Flink MiniCluster (2 TaskManagers × 8 slots) and,
 * for the tests that ask for it, one real Schema Registry, shared by every ITCase of a test run: started by the first class that uses this extension,
 * closed when the run ends. The S3 filesystem is loaded as a plugin from {@code FLINK_PLUGINS_DIR}.
 *
 * <p>Test classes run three at a time (failsafe's JUnit configuration in the pom), so what one class does to the
 * shared parts must not reach another: a class that kills TaskManagers runs its jobs on a MiniCluster of its own
 * ({@link KillsTaskManagers}), the others run theirs on the shared one ({@link SharedMiniCluster}); a class
 * injecting S3 faults arms them for its own objects only ({@link #s3Faults(String)}); a class that stops the broker or
 * the S3 server, arms S3 faults everywhere, changes the JVM's file systems, looks at every thread of the JVM or times
 * what it runs is {@code @Isolated}. Faults armed everywhere are healed after each test, whatever it asserted.
 */
public final class SharedStack
        implements BeforeAllCallback, AfterEachCallback, ExtensionContext.Store.CloseableResource, AutoCloseable {

    public static final String BUCKET = "archive-it";
    /** A bucket of the same S3 server reached through {@link #connectionResets()}: for the tests that reset connections. */
    public static final String RESETS_BUCKET = "archive-it-resets";
    /**
     * A bucket for the tests that stall or throttle S3: every bucket has an S3 client and connection pool of its own in
     * this JVM, so the requests those faults hold up (seconds each) take no connection other tests need.
     */
    public static final String SLOW_BUCKET = "archive-it-slow";
    public static final int TASK_MANAGERS = 2;
    /**
     * Room for the jobs of three classes side by side (up to parallelism 4 each, some running two or three jobs at
     * once): a job asking for more slots than the TaskManagers have fails at once.
     */
    public static final int SLOTS_PER_TASK_MANAGER = 8;
    /** Parallelism of a job that sets none (as when the MiniCluster had 2 × 2 slots, not one per slot). */
    public static final int DEFAULT_PARALLELISM = 4;

    private static SharedStack instance;
    /** Started outside JUnit ({@link #startAlone()}): no other class runs jobs on its MiniCluster. */
    private boolean alone;
    private static final AtomicInteger NAMES = new AtomicInteger();

    /** The MiniCluster of the class running on this thread, when it has one of its own ({@link KillsTaskManagers}). */
    private static final ThreadLocal<TestMiniCluster> OWN_CLUSTER = new ThreadLocal<>();

    private EmbeddedServers servers;
    private EmbeddedKafka kafka;
    private EmbeddedS3 s3;
    private FaultInjectingBlobStore s3Faults;
    private ConnectionResettingProxy connectionResets;
    private S3IncompleteUploads uploads;
    private TestMiniCluster flink;
    private Configuration clusterSettings;
    private EmbeddedSchemaRegistry registry;
    /** The S3 server's files: a full run leaves about 250 MB there, deleted when the run ends. */
    private Path dir;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        synchronized (SharedStack.class) {
            if (instance == null) {
                SharedStack stack = new SharedStack();
                stack.start();
                instance = stack;
                context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL).put(SharedStack.class.getName(), stack);
            }
        }
    }

    /** The stack outside JUnit, for the benchmark suite's cluster soak (src/bench): started here, closed by the caller. */
    public static synchronized SharedStack startAlone() throws Exception {
        if (instance != null) {
            throw new IllegalStateException("The shared stack runs already");
        }
        SharedStack stack = new SharedStack();
        stack.start();
        stack.alone = true;
        instance = stack;
        return stack;
    }

    private void start() throws Exception {
        dir = Files.createTempDirectory("archiver-it");
        servers = EmbeddedServers.withBucket(dir.resolve("s3"), BUCKET).s3Store(store -> s3Faults = new FaultInjectingBlobStore(store)).start();
        s3 = servers.s3();
        s3.createBucket(RESETS_BUCKET);
        s3.createBucket(SLOW_BUCKET);
        connectionResets = ConnectionResettingProxy.start(s3.endpoint());
        s3.routeBucket(RESETS_BUCKET, connectionResets.endpoint()); // in every S3 setting of the run: its MiniCluster, its CLI runs
        kafka = servers.kafka();
        Configuration s3Settings = new Configuration();
        s3.flinkSettings().forEach(s3Settings::setString);
        uploads = S3IncompleteUploads.fromSettings(s3Settings);
        clusterSettings = new Configuration();
        s3.flinkSettings().forEach(clusterSettings::setString);
        clusterSettings.set(RestOptions.BIND_PORT, "0");
        clusterSettings.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse("64mb"));
        initializeFileSystems(Map.of());
        flink = TestMiniCluster.start(clusterSettings);
        ThreadContextEnvironments.install(() -> cluster().miniCluster(), DEFAULT_PARALLELISM);
    }

    /**
     * Loads Flink's file systems (for this JVM: the MiniCluster's TaskManagers too) with the shared S3 server's
     * settings and {@code extra} on top, as a cluster configured so would; {@code Map.of()} restores the shared ones.
     */
    public void initializeFileSystems(Map<String, String> extra) {
        Configuration conf = new Configuration();
        s3.flinkSettings().forEach(conf::setString);
        extra.forEach(conf::setString);
        JobLauncher.initializeFileSystems(conf);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (instance != null) {
            instance.s3Faults.everywhere().heal(); // armed by @Isolated classes only: no other test runs meanwhile
        }
    }

    public static SharedStack get() {
        if (instance == null) {
            throw new IllegalStateException("Annotate the test class with @ExtendWith(SharedStack.class)");
        }
        return instance;
    }

    public EmbeddedKafka kafka() {
        return kafka;
    }

    /** The shared Schema Registry, started by the first test that asks for it (about 5 to 12 s). */
    public synchronized EmbeddedSchemaRegistry registry() throws Exception {
        if (registry == null) {
            registry = EmbeddedSchemaRegistry.start();
        }
        return registry;
    }

    public EmbeddedS3 s3() {
        return s3;
    }

    /** Faults for every object of the S3 server: for {@code @Isolated} classes only. */
    public S3Faults s3Faults() {
        return s3Faults.everywhere();
    }

    /** Faults for the objects under folders named {@code name}: a test's archive, checkpoints and savepoints. */
    public S3Faults s3Faults(String name) {
        return s3Faults.of(name);
    }

    /** Heals and forgets the faults of {@code name}. */
    public void healS3Faults(String name) {
        s3Faults.forget(name);
    }

    /** The proxy through which the objects of {@link #RESETS_BUCKET} are reached (its resets are armed by one class only). */
    public ConnectionResettingProxy connectionResets() {
        return connectionResets;
    }

    /** The incomplete multipart uploads of the shared S3 server, through the S3 API. */
    public IncompleteUploads uploads() {
        return uploads;
    }

    /** The archive verifier, with incomplete multipart uploads listed through the S3 API. */
    public ArchiveVerifier verifier(PayloadFormats formats) {
        return new ArchiveVerifier(formats, uploads);
    }

    /** The MiniCluster of the calling thread's test class: its own ({@link KillsTaskManagers}) or the shared one. */
    public MiniCluster miniCluster() {
        return cluster().miniCluster();
    }

    private TestMiniCluster cluster() {
        TestMiniCluster own = OWN_CLUSTER.get();
        return own != null ? own : flink;
    }

    /**
     * Kills every TaskManager of the calling class's own MiniCluster (every running task fails at whatever point it is)
     * and starts fresh ones, so running jobs must recover from their last completed checkpoint. The shared MiniCluster's
     * only when the stack runs {@linkplain #startAlone() alone}.
     */
    public void killAndReplaceTaskManagers() throws Exception {
        TestMiniCluster own = OWN_CLUSTER.get();
        if (own == null && !alone) {
            throw new IllegalStateException("Annotate the test class with @KillsTaskManagers: the shared MiniCluster's "
                    + "TaskManagers run the jobs of other classes too");
        }
        cluster().killAndReplaceTaskManagers();
    }

    /** {@code task} as run on another thread with the calling thread's MiniCluster: the jobs it starts go where the caller's go. */
    public <T> Supplier<T> withThisThreadsCluster(Supplier<T> task) {
        TestMiniCluster own = OWN_CLUSTER.get();
        return () -> {
            OWN_CLUSTER.set(own);
            try {
                return task.get();
            } finally {
                OWN_CLUSTER.remove();
            }
        };
    }

    /** Starts a MiniCluster for the class running on the calling thread: its jobs run there, not on the shared one. */
    void startOwnMiniCluster() throws Exception {
        OWN_CLUSTER.set(TestMiniCluster.start(clusterSettings));
    }

    void closeOwnMiniCluster() {
        TestMiniCluster own = OWN_CLUSTER.get();
        OWN_CLUSTER.remove();
        if (own != null) {
            own.close();
        }
    }

    /** A name unique in this run, for topics and archive prefixes. */
    public static String uniqueName(String base) {
        return base + "-" + NAMES.incrementAndGet();
    }

    /**
     * Settings every test job shares: broker, a fresh archive root, fast checkpoints, bounded restarts. A
     * restart is counted per failed task: killing both TaskManagers under a job of parallelism 2 may take 4 to 6
     * (a restart can land on a TaskManager about to be killed), so 5 was too few on a slow machine.
     */
    public Map<String, String> jobSettings(String topic, String archiveName) {
        Map<String, String> settings = new java.util.LinkedHashMap<>();
        settings.put("kafka.bootstrap.servers", kafka.bootstrapServers());
        settings.put("kafka.topics", topic);
        settings.put("kafka.group.id", archiveName);
        settings.put("sink.path", "s3://" + BUCKET + "/" + archiveName);
        settings.put("checkpoint.interval", "500 ms");
        settings.put("restore.checkpoint-interval", "500 ms");
        settings.put("restart.strategy", "fixed-delay");
        settings.put("restart.attempts", "20");
        settings.put("restart.delay", "200 ms");
        settings.put("preflight.timeout", "0 s");
        settings.put("fencing.lease-timeout", "3 s");
        return settings;
    }

    @Override
    public void close() throws Exception {
        try {
            flink.close();
            uploads.close();
            connectionResets.close();
            if (registry != null) {
                registry.close();
            }
        } finally {
            try {
                servers.close();
            } finally {
                FileUtils.deleteDirectoryQuietly(dir.toFile());
            }
        }
    }
}
