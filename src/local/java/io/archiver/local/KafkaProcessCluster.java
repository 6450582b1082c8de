package io.archiver.local;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.Uuid;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.jar.JarFile;
import java.util.stream.Collectors;

/**
 * A Kafka cluster as production runs one, each node a JVM of its own started from the Kafka jars on this JVM's class
 * path ({@code kafka.Kafka}, as {@code kafka-server-start.sh} does): a KRaft controller of its own and brokers (three by
 * default), topics replicated to three of them with {@code min.insync.replicas} 2, and Kafka's internal topics
 * (consumer offsets, transaction state) alike. A broker can be killed (SIGKILL: no controlled shutdown, nothing
 * flushed), shut down (SIGTERM: Kafka's controlled shutdown, leadership moved first) and started again on its own log
 * directories; {@link #awaitFullyReplicated} waits until every replica is back in sync.
 */
public final class KafkaProcessCluster implements KafkaBrokers, AutoCloseable {

    private static final int CONTROLLER_ID = 100;
    /**
     * The jars of this JVM's class path that Kafka's broker and tools need (by their Maven group's folder): a node JVM
     * on the whole class path of a test run (some 300 jars) takes seconds longer to start on a busy machine.
     */
    private static final List<String> KAFKA_JARS = List.of("/org/apache/kafka/", "/org/scala-lang/", "/com/typesafe/scala-logging/",
            "/net/sourceforge/argparse4j/", "/net/sf/jopt-simple/", "/commons-validator/", "/commons-beanutils/", "/commons-digester/",
            "/commons-logging/", "/commons-collections/", "/com/fasterxml/jackson/", "/org/bitbucket/b_c/", "/com/yammer/metrics/",
            "/com/google/re2j/", "/org/slf4j/", "/org/apache/logging/log4j/", "/com/github/luben/", "/org/lz4/", "/org/xerial/snappy/",
            "/org/pcollections/", "/io/opentelemetry/", "/com/google/protobuf/", "/com/github/ben-manes/", "/org/hdrhistogram/");
    private static final String CLASS_PATH = kafkaClassPath();
    private static final Duration READY = Duration.ofSeconds(60);

    private final Path dir;
    private final String clusterId;
    private final int controllerPort;
    private final Map<Integer, Integer> brokerPorts = new TreeMap<>();
    private final Map<Integer, Process> processes = new TreeMap<>();
    private final int replication;
    private Admin admin;

    private KafkaProcessCluster(Path dir, int brokers) throws IOException {
        this.dir = dir;
        this.clusterId = Uuid.randomUuid().toString(); // never starting with '-', which the format tool would take for an option
        this.controllerPort = freePort();
        for (int id = 1; id <= brokers; id++) {
            brokerPorts.put(id, freePort());
        }
        this.replication = Math.min(3, brokers);
        Files.writeString(dir.resolve("log4j2.properties"), String.join("\n",
                "rootLogger.level = WARN", "rootLogger.appenderRef.out.ref = out", "appender.out.type = Console", "appender.out.name = out",
                "appender.out.layout.type = PatternLayout", "appender.out.layout.pattern = %d{HH:mm:ss.SSS} %-5p %c{1} - %m%n", ""));
    }

    /** Formats and starts a controller and {@code brokers} brokers under {@code dir}; returns once every broker is registered. */
    public static KafkaProcessCluster start(Path dir, int brokers) throws Exception {
        KafkaProcessCluster cluster = new KafkaProcessCluster(dir, brokers);
        try {
            List<Process> formats = new ArrayList<>();
            formats.add(cluster.format(cluster.write(CONTROLLER_ID)));
            for (int id : cluster.brokerPorts.keySet()) {
                formats.add(cluster.format(cluster.write(id)));
            }
            for (Process format : formats) {
                if (!format.waitFor(60, TimeUnit.SECONDS) || format.exitValue() != 0) {
                    throw new IllegalStateException("Formatting a Kafka node's storage failed: see " + dir);
                }
            }
            cluster.launch(CONTROLLER_ID);
            for (int id : cluster.brokerPorts.keySet()) {
                cluster.launch(id);
            }
            cluster.await("every broker registered", READY, () -> cluster.registered().size() == brokers);
            return cluster;
        } catch (Exception e) {
            cluster.close();
            throw e;
        }
    }

    @Override
    public String bootstrapServers() {
        return brokerPorts.values().stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
    }

    /** The broker ids, 1 to the number of brokers. */
    public Collection<Integer> brokers() {
        return brokerPorts.keySet();
    }

    /** The running brokers' process ids, by broker id. */
    public Map<Integer, Long> brokerProcesses() {
        Map<Integer, Long> pids = new TreeMap<>();
        processes.forEach((id, p) -> {
            if (id != CONTROLLER_ID && p.isAlive()) {
                pids.put(id, p.pid());
            }
        });
        return pids;
    }

    /** The cluster's admin client (one for its life: the caller does not close it). */
    public synchronized Admin admin() {
        if (admin == null) {
            Properties props = new Properties();
            props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
            admin = Admin.create(props);
        }
        return admin;
    }

    @Override
    public void createTopic(String topic, int partitions, Map<String, String> configs) throws Exception {
        admin().createTopics(List.of(new NewTopic(topic, partitions, (short) replication).configs(configs))).all().get(30, TimeUnit.SECONDS);
        await("topic " + topic + " served with every replica in sync", READY, () -> inSync(topic, partitions));
    }

    /** The id of the broker leading {@code partition} of {@code topic}. */
    public int leaderOf(String topic, int partition) throws Exception {
        TopicDescription d = admin().describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
        Node leader = d.partitions().get(partition).leader();
        if (leader == null) {
            throw new IllegalStateException(topic + "-" + partition + " has no leader");
        }
        return leader.id();
    }

    /** Kills broker {@code id} with SIGKILL: no controlled shutdown, its page cache the only copy of its last writes. */
    public void kill(int id) throws InterruptedException {
        Process p = processes.remove(id);
        p.destroyForcibly();
        p.waitFor(30, TimeUnit.SECONDS);
    }

    /** Stops broker {@code id} with SIGTERM (Kafka's controlled shutdown: its leadership moved to others first) and waits for its end. */
    public void shutdown(int id) throws InterruptedException {
        Process p = processes.remove(id);
        p.destroy();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("Broker " + id + " did not shut down within 60 s of SIGTERM");
        }
    }

    /** Starts broker {@code id} again on its log directories; returns once it is registered with the controller. */
    public void restart(int id) throws Exception {
        launch(id);
        await("broker " + id + " registered again", READY, () -> registered().contains(id));
    }

    /** Starts every broker that is not running (killed or shut down, and not started again). */
    public void restartStopped() throws Exception {
        for (int id : brokerPorts.keySet()) {
            if (!processes.containsKey(id)) {
                restart(id);
            }
        }
    }

    /** Waits until every partition of every topic has each of its replicas in sync (what a rolling restart waits for). */
    public void awaitFullyReplicated(Duration timeout) throws Exception {
        await("every replica in sync", timeout, () -> inSync(null, -1));
    }

    @Override
    public void close() {
        if (admin != null) {
            admin.close(Duration.ofSeconds(5));
        }
        processes.values().forEach(Process::destroyForcibly);
        for (Process p : processes.values()) {
            try {
                p.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        processes.clear();
    }

    /**
     * Whether every partition of {@code topic} (of every topic, Kafka's internal ones too, when null) has a leader and
     * each of its replicas in sync, and {@code topic} has {@code partitions}; false while the cluster cannot say.
     */
    private boolean inSync(String topic, int partitions) {
        try {
            Collection<String> names = topic != null ? List.of(topic)
                    : admin().listTopics(new ListTopicsOptions().listInternal(true)).names().get(10, TimeUnit.SECONDS);
            Collection<TopicDescription> described = admin().describeTopics(names).allTopicNames().get(10, TimeUnit.SECONDS).values();
            return described.stream().allMatch(d -> (partitions < 0 || d.partitions().size() == partitions)
                    && d.partitions().stream().allMatch(p -> p.leader() != null && p.isr().size() == p.replicas().size()));
        } catch (ExecutionException | TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private Set<Integer> registered() {
        try {
            return admin().describeCluster().nodes().get(5, TimeUnit.SECONDS).stream().map(Node::id).collect(Collectors.toSet());
        } catch (ExecutionException | TimeoutException e) {
            return Set.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Set.of();
        }
    }

    private void await(String what, Duration timeout, BooleanSupplier condition) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            for (Map.Entry<Integer, Process> p : processes.entrySet()) {
                if (!p.getValue().isAlive()) {
                    throw new IllegalStateException("Kafka node " + p.getKey() + " ended (exit " + p.getValue().exitValue() + ") while waiting for "
                            + what + ": see " + dir.resolve("node-" + p.getKey() + ".out"));
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Not " + what + " within " + timeout + ": see the node logs in " + dir);
            }
            TimeUnit.MILLISECONDS.sleep(200);
        }
    }

    /** Writes node {@code id}'s server.properties; returns its path. */
    private Path write(int id) throws IOException {
        Map<String, String> p = new TreeMap<>();
        p.put("node.id", Integer.toString(id));
        p.put("controller.quorum.voters", CONTROLLER_ID + "@127.0.0.1:" + controllerPort);
        p.put("controller.listener.names", "CONTROLLER");
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.put("log.dirs", dir.resolve("data-" + id).toString());
        // a broker's heartbeat every 500 ms (default 2 s), the controller fencing one silent for 3 s (default 9 s): a restarted
        // broker is back, and a killed one's partitions led by others, within seconds
        p.put("broker.heartbeat.interval.ms", "500");
        p.put("broker.session.timeout.ms", "3000");
        // a topic created without a replication factor (the restore ledger's) gets the controller's default in KRaft, not a broker's
        p.put("default.replication.factor", Integer.toString(replication));
        p.put("min.insync.replicas", Integer.toString(Math.min(2, replication)));
        if (id == CONTROLLER_ID) {
            p.put("process.roles", "controller");
            p.put("listeners", "CONTROLLER://127.0.0.1:" + controllerPort);
        } else {
            p.put("process.roles", "broker");
            p.put("listeners", "PLAINTEXT://127.0.0.1:" + brokerPorts.get(id));
            p.put("inter.broker.listener.name", "PLAINTEXT");
            p.put("auto.create.topics.enable", "false");
            p.put("offsets.topic.replication.factor", Integer.toString(replication));
            p.put("offsets.topic.num.partitions", "4");
            p.put("transaction.state.log.replication.factor", Integer.toString(replication));
            p.put("transaction.state.log.min.isr", Integer.toString(Math.min(2, replication)));
            p.put("transaction.state.log.num.partitions", "4");
            p.put("group.initial.rebalance.delay.ms", "0");
            // test records may carry old timestamps: time-based deletion would move the log start past records not yet archived
            p.put("log.retention.ms", "-1");
        }
        StringBuilder text = new StringBuilder();
        p.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
        Path file = dir.resolve("node-" + id + ".properties");
        Files.writeString(file, text.toString(), StandardCharsets.UTF_8);
        return file;
    }

    private Process format(Path properties) throws IOException {
        return node(List.of("kafka.tools.StorageTool", "format", "-t", clusterId, "-c", properties.toString()), properties + ".format.out");
    }

    private void launch(int id) throws IOException {
        processes.put(id, node(List.of("kafka.Kafka", dir.resolve("node-" + id + ".properties").toString()), dir.resolve("node-" + id + ".out").toString()));
    }

    private Process node(List<String> mainAndArgs, String output) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xms64m", "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Dlog4j2.configurationFile=" + dir.resolve("log4j2.properties").toUri(),
                "-cp", CLASS_PATH));
        command.addAll(mainAndArgs);
        return new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(Path.of(output).toFile())).start();
    }

    /** The jars of {@link #KAFKA_JARS} on this JVM's class path, a manifest-only jar's (Maven's test runners use one) expanded. */
    private static String kafkaClassPath() {
        List<String> jars = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            jars.add(entry);
            if (entry.endsWith(".jar")) {
                try (JarFile jar = new JarFile(entry)) {
                    String manifestPath = jar.getManifest() == null ? null : jar.getManifest().getMainAttributes().getValue("Class-Path");
                    if (manifestPath != null) {
                        for (String url : manifestPath.trim().split("\\s+")) {
                            jars.add(Path.of(Path.of(entry).toAbsolutePath().getParent().toUri().resolve(url)).toString());
                        }
                    }
                } catch (IOException e) {
                    // not a jar to expand
                }
            }
        }
        String path = jars.stream().filter(j -> KAFKA_JARS.stream().anyMatch(g -> j.replace(File.separatorChar, '/').contains(g)))
                .collect(Collectors.joining(File.pathSeparator));
        return path.isEmpty() ? System.getProperty("java.class.path") : path;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
