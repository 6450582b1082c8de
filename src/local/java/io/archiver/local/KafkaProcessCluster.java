package io.archiver.local;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;

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
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
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
    private static final Duration READY = Duration.ofSeconds(60);

    private final Path dir;
    private final String clusterId;
    private final int controllerPort;
    private final Map<Integer, Integer> brokerPorts = new TreeMap<>();
    private final Map<Integer, Process> processes = new TreeMap<>();
    private final int replication;

    private KafkaProcessCluster(Path dir, int brokers) throws IOException {
        this.dir = dir;
        this.clusterId = uuid();
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

    public Admin admin() {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        return Admin.create(props);
    }

    @Override
    public void createTopic(String topic, int partitions) throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) replication))).all().get(30, TimeUnit.SECONDS);
        }
        await("topic " + topic + " served with every replica in sync", READY, () -> inSync(topic, partitions));
    }

    /** The id of the broker leading {@code partition} of {@code topic}. */
    public int leaderOf(String topic, int partition) throws Exception {
        try (Admin admin = admin()) {
            TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
            Node leader = d.partitions().get(partition).leader();
            if (leader == null) {
                throw new IllegalStateException(topic + "-" + partition + " has no leader");
            }
            return leader.id();
        }
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

    /** Waits until every partition of every topic has each of its replicas in sync (what a rolling restart waits for). */
    public void awaitFullyReplicated(Duration timeout) throws Exception {
        await("every replica in sync", timeout, () -> {
            try (Admin admin = admin()) {
                var names = admin.listTopics(new org.apache.kafka.clients.admin.ListTopicsOptions().listInternal(true)).names().get(10, TimeUnit.SECONDS);
                for (TopicDescription d : admin.describeTopics(names).allTopicNames().get(10, TimeUnit.SECONDS).values()) {
                    for (TopicPartitionInfo p : d.partitions()) {
                        if (p.isr().size() < p.replicas().size()) {
                            return false;
                        }
                    }
                }
                return true;
            } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
    }

    @Override
    public void close() {
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

    private boolean inSync(String topic, int partitions) {
        try (Admin admin = admin()) {
            TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic);
            return d.partitions().size() == partitions
                    && d.partitions().stream().allMatch(p -> p.leader() != null && p.isr().size() == p.replicas().size());
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private java.util.Set<Integer> registered() {
        try (Admin admin = admin()) {
            return admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).stream().map(Node::id).collect(Collectors.toSet());
        } catch (Exception e) {
            return java.util.Set.of();
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
        if (id == CONTROLLER_ID) {
            p.put("process.roles", "controller");
            p.put("listeners", "CONTROLLER://127.0.0.1:" + controllerPort);
        } else {
            p.put("process.roles", "broker");
            p.put("listeners", "PLAINTEXT://127.0.0.1:" + brokerPorts.get(id));
            p.put("inter.broker.listener.name", "PLAINTEXT");
            p.put("auto.create.topics.enable", "false");
            p.put("default.replication.factor", Integer.toString(replication));
            p.put("min.insync.replicas", Integer.toString(Math.min(2, replication)));
            p.put("offsets.topic.replication.factor", Integer.toString(replication));
            p.put("offsets.topic.num.partitions", "4");
            p.put("transaction.state.log.replication.factor", Integer.toString(replication));
            p.put("transaction.state.log.min.isr", Integer.toString(Math.min(2, replication)));
            p.put("transaction.state.log.num.partitions", "4");
            p.put("group.initial.rebalance.delay.ms", "0");
            // test records may carry old timestamps: time-based deletion would move the log start past records not yet archived
            p.put("log.retention.ms", "-1");
            // a replica that stops fetching leaves the ISR within seconds (the default is 30 s)
            p.put("replica.lag.time.max.ms", "5000");
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
                "-Xms64m", "-Xmx384m", "-XX:+UseSerialGC", "-Dlog4j2.configurationFile=" + dir.resolve("log4j2.properties").toUri(),
                "-cp", System.getProperty("java.class.path")));
        command.addAll(mainAndArgs);
        return new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(Path.of(output).toFile())).start();
    }

    private static String uuid() {
        UUID u = UUID.randomUUID();
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(16).putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits());
        return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(b.array());
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
