package io.archiver.local;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * A real Apache Kafka broker (KRaft, one combined broker/controller node) running in this JVM, from
 * Kafka's own server code. Used by the {@code local} command and the integration tests.
 */
public final class EmbeddedKafka implements AutoCloseable {

    /** The secured broker's super user and plain user ({@link #start(Path, SecurityProtocol)}). */
    public static final String ADMIN_USER = "plain-admin";
    public static final String USER = "plain-user1";

    private final KafkaClusterTestKit cluster;

    private final SecurityProtocol protocol;

    private EmbeddedKafka(KafkaClusterTestKit cluster, SecurityProtocol protocol) {
        this.cluster = cluster;
        this.protocol = protocol;
    }

    /** Formats and starts a broker whose data lives under {@code baseDir} (a temp folder when null). */
    public static EmbeddedKafka start(Path baseDir) throws Exception {
        return start(baseDir, SecurityProtocol.PLAINTEXT);
    }

    /**
     * Like {@link #start(Path)}, its clients' listener speaking {@code protocol}. {@code SASL_PLAINTEXT} is the test
     * kit's secured broker: SASL PLAIN with the users {@value #ADMIN_USER} (a super user) and {@value #USER}
     * (passwords: the name and {@code -secret}), and ACLs enforced (no ACL: nothing allowed).
     */
    public static EmbeddedKafka start(Path baseDir, SecurityProtocol protocol) throws Exception {
        TestKitNodes.Builder nodes = new TestKitNodes.Builder()
                .setCombined(true).setNumBrokerNodes(1).setNumControllerNodes(1)
                .setBrokerSecurityProtocol(protocol).setControllerSecurityProtocol(protocol);
        if (baseDir != null) {
            nodes.setBaseDirectory(baseDir);
        }
        KafkaClusterTestKit cluster =
                new KafkaClusterTestKit.Builder(nodes.build())
                        .setConfigProp("auto.create.topics.enable", "false")
                        // no time-based deletion: sample and test records may carry old timestamps, and
                        // retention would silently move the log start past records not yet archived
                        .setConfigProp("log.retention.ms", "-1")
                        .setConfigProp("group.initial.rebalance.delay.ms", "0")
                        // compacted topics get cleaned within seconds, not after the default 15 s pauses
                        .setConfigProp("log.cleaner.backoff.ms", "1000")
                        .setConfigProp("offsets.topic.replication.factor", "1")
                        .setConfigProp("offsets.topic.num.partitions", "4")
                        .setConfigProp("transaction.state.log.replication.factor", "1")
                        .setConfigProp("transaction.state.log.min.isr", "1")
                        .setDeleteOnClose(baseDir == null)
                        .build();
        PrintStream stdout = System.out;
        System.setOut(new PrintStream(OutputStream.nullOutputStream())); // format() prints its bootstrap metadata there
        try {
            cluster.format();
        } finally {
            System.setOut(stdout);
        }
        cluster.startup();
        cluster.waitForReadyBrokers();
        return new EmbeddedKafka(cluster, protocol);
    }

    public String bootstrapServers() {
        return cluster.bootstrapServers();
    }

    public Admin admin() {
        return Admin.create(adminClientProperties());
    }

    /** The client settings of the super user: bootstrap servers and, on a secured broker, its SASL login. */
    public Properties adminClientProperties() {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        if (protocol == SecurityProtocol.SASL_PLAINTEXT) {
            props.put("security.protocol", protocol.name);
            props.put("sasl.mechanism", "PLAIN");
            props.put("sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
                    + ADMIN_USER + "\" password=\"" + ADMIN_USER + "-secret\";");
        }
        return props;
    }

    public void createTopic(String topic, int partitions) throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
    }

    /**
     * Shuts the broker down and starts it again (same node, same log directories), as a broker restart in
     * production: clients see connections refused, then leadership coming back.
     */
    public void restartBroker() throws Exception {
        for (var broker : cluster.brokers().values()) {
            broker.shutdown();
            broker.awaitShutdown();
            broker.startup();
        }
        cluster.waitForReadyBrokers();
    }

    @Override
    public void close() throws Exception {
        cluster.close();
    }
}
