package io.archiver.local;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.resource.ResourcePattern;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A real Apache Kafka broker (KRaft, one combined broker/controller node) running in this JVM, from
 * Kafka's own server code. Used by the {@code local} command and the integration tests.
 */
public final class EmbeddedKafka implements KafkaBrokers, AutoCloseable {

    private static final int PARTITIONS_PER_REQUEST = 5_000;

    /** The secured broker's super user and plain user ({@link #start(Path, SecurityProtocol)}). */
    public static final String ADMIN_USER = "plain-admin";
    public static final String USER = "plain-user1";

    /** The client listeners of a broker started by {@link #startSecured}. */
    public enum Listener {
        /** SASL PLAIN without TLS, the test kit's own (also the admin's). */
        SASL_PLAINTEXT("EXTERNAL"),
        /** TLS with SASL SCRAM-SHA-512 users ({@link #createScramUser}). */
        SASL_SSL("SECURE"),
        /** TLS with client certificates (mTLS): the principal is the certificate's common name. */
        SSL("MTLS");

        private final String name;

        Listener(String name) {
            this.name = name;
        }
    }

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
        return start(baseDir, protocol, Map.of());
    }

    /**
     * A secured broker as production runs them: the {@code SASL_PLAINTEXT} broker of {@link #start(Path,
     * SecurityProtocol)} (its super user administers) with two more client listeners signed by {@code tls}'s CA:
     * {@link Listener#SASL_SSL} (SCRAM-SHA-512 users) and {@link Listener#SSL} (client certificates required; the
     * principal is the certificate's common name, {@code User:<CN>}). ACLs are enforced on all of them.
     */
    public static EmbeddedKafka startSecured(Path baseDir, TlsMaterial tls) throws Exception {
        Map<String, String> props = new LinkedHashMap<>();
        props.put("listeners", "EXTERNAL://localhost:0,CONTROLLER://localhost:0,SECURE://localhost:0,MTLS://localhost:0");
        props.put("listener.security.protocol.map",
                "EXTERNAL:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT,SECURE:SASL_SSL,MTLS:SSL");
        props.put("listener.name.secure.sasl.enabled.mechanisms", "SCRAM-SHA-512");
        props.put("listener.name.secure.scram-sha-512.sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required;");
        for (String listener : List.of("secure", "mtls")) {
            String prefix = "listener.name." + listener + ".";
            props.put(prefix + "ssl.keystore.type", "PKCS12");
            props.put(prefix + "ssl.keystore.location", tls.serverKeyStore().toString());
            props.put(prefix + "ssl.keystore.password", tls.password());
            props.put(prefix + "ssl.key.password", tls.password());
        }
        props.put("listener.name.mtls.ssl.truststore.type", "PKCS12");
        props.put("listener.name.mtls.ssl.truststore.location", tls.trustStore().toString());
        props.put("listener.name.mtls.ssl.truststore.password", tls.password());
        props.put("listener.name.mtls.ssl.client.auth", "required");
        props.put("ssl.principal.mapping.rules", "RULE:^CN=([^,]+)$/$1/,DEFAULT");
        return start(baseDir, SecurityProtocol.SASL_PLAINTEXT, props);
    }

    /** Like {@link #start(Path)}, with broker settings of {@code extra} on top of this class's. */
    public static EmbeddedKafka start(Path baseDir, Map<String, String> extra) throws Exception {
        return start(baseDir, SecurityProtocol.PLAINTEXT, extra);
    }

    private static EmbeddedKafka start(Path baseDir, SecurityProtocol protocol, Map<String, String> extra) throws Exception {
        TestKitNodes.Builder nodes = new TestKitNodes.Builder()
                .setCombined(true).setNumBrokerNodes(1).setNumControllerNodes(1)
                .setBrokerSecurityProtocol(protocol).setControllerSecurityProtocol(protocol);
        if (baseDir != null) {
            nodes.setBaseDirectory(baseDir);
        }
        KafkaClusterTestKit.Builder builder =
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
                        .setDeleteOnClose(baseDir == null);
        extra.forEach(builder::setConfigProp);
        KafkaClusterTestKit cluster = builder.build();
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

    /** The bootstrap address of a client listener of a broker started by {@link #startSecured}. */
    public String bootstrapServers(Listener listener) {
        if (listener == Listener.SASL_PLAINTEXT) {
            return bootstrapServers();
        }
        var broker = cluster.brokers().values().iterator().next();
        return "localhost:" + broker.boundPort(ListenerName.normalised(listener.name));
    }

    /** Creates (or updates) a SCRAM-SHA-512 user of the {@link Listener#SASL_SSL} listener and waits until it is known. */
    public void createScramUser(String user, String password) throws Exception {
        try (Admin admin = admin()) {
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(user,
                            new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192), password)))
                    .all().get(30, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!admin.describeUserScramCredentials().all().get(30, TimeUnit.SECONDS).containsKey(user)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("SCRAM user " + user + " not known to the broker within 30 s");
                }
                Thread.onSpinWait();
            }
        }
    }

    /** Lets {@code principal} (e.g. {@code User:archiver}) do {@code operations} on {@code resource}. */
    public void allow(String principal, ResourcePattern resource, AclOperation... operations) throws Exception {
        List<AclBinding> acls = new ArrayList<>();
        for (AclOperation operation : operations) {
            acls.add(new AclBinding(resource, new AccessControlEntry(principal, "*", operation, AclPermissionType.ALLOW)));
        }
        try (Admin admin = admin()) {
            admin.createAcls(acls).all().get(30, TimeUnit.SECONDS);
        }
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

    /**
     * Creates {@code topic}; more than {@value #PARTITIONS_PER_REQUEST} partitions are added in steps, since KRaft
     * refuses a request that writes more than 10,000 metadata records at once.
     */
    public void createTopic(String topic, int partitions, Map<String, String> configs) throws Exception {
        try (Admin admin = admin()) {
            int created = Math.min(partitions, PARTITIONS_PER_REQUEST);
            admin.createTopics(List.of(new NewTopic(topic, created, (short) 1).configs(configs))).all().get(30, TimeUnit.SECONDS);
            while (created < partitions) {
                created = Math.min(partitions, created + PARTITIONS_PER_REQUEST);
                admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(created))).all().get(60, TimeUnit.SECONDS);
            }
            // a creation is acknowledged before the broker serves the topic: callers use it at once
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (servedPartitions(admin, topic) < partitions) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("Topic " + topic + " was created but is not served with " + partitions + " partitions after 30 s");
                }
                Thread.sleep(50);
            }
        }
    }

    private static int servedPartitions(Admin admin, String topic) throws Exception {
        try {
            return admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic).partitions().size();
        } catch (ExecutionException e) {
            return 0; // not known to the broker yet
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
