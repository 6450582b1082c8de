package io.archiver.restore.ledger;

import io.archiver.archive.ArchiveRoot;
import io.archiver.config.ConfigException;
import io.archiver.fs.MetadataObjects;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.core.fs.Path;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;

import java.io.IOException;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Which ledger topic the restores of an archive recorded their runs in, per cluster: {@code
 * <archive>/_archiver/restore-ledgers.json} maps {@code <cluster id>/<ledger topic>} to the topic's id, written
 * before a first restore into that cluster writes. A ledger topic deleted since (missing, or created again with
 * another id) would make every earlier run unknown and a restore write its records again: it is refused instead.
 */
final class LedgerIdentity {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path path;
    private final String key;
    private final Map<String, String> known;

    private LedgerIdentity(Path path, String key, Map<String, String> known) {
        this.path = path;
        this.key = key;
        this.known = known;
    }

    static LedgerIdentity of(ArchiveRoot archive, Admin admin, String topic) throws Exception {
        Path path = archive.restoreLedgers();
        String cluster = admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS);
        Map<String, String> known = new TreeMap<>();
        Optional<byte[]> bytes = MetadataObjects.read(path);
        if (bytes.isPresent()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = JSON.readTree(bytes.get()).path("ledgers").fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                known.put(e.getKey(), e.getValue().asText());
            }
        }
        return new LedgerIdentity(path, cluster + "/" + topic, known);
    }

    /** Whether restores of this archive recorded runs in this cluster's ledger topic before. */
    boolean recorded() {
        return known.containsKey(key);
    }

    /**
     * Refuses a ledger topic that is not the one earlier restores recorded their runs in (deleted since, or
     * created again); {@code current} is empty when the topic does not exist.
     */
    void check(Optional<String> current) {
        String before = known.get(key);
        if (before != null && !current.equals(Optional.of(before))) {
            String topic = key.substring(key.indexOf('/') + 1);
            throw new ConfigException("The restore ledger topic '" + topic + "' " + (current.isEmpty() ? "is gone" : "was deleted and created "
                    + "again") + " since restores of this archive recorded in it what they wrote (" + path + "), so what they wrote "
                    + "cannot be known and a restore could write it again. Restore into new topics, or, once you have checked that "
                    + "the targets hold nothing restored, delete " + path + " and start again.");
        }
    }

    /** Records {@code topicId} as this cluster's ledger topic, before the first restore into the cluster writes. */
    void record(String topicId) throws IOException {
        if (topicId.equals(known.get(key))) {
            return;
        }
        known.put(key, topicId);
        ObjectNode n = JSON.createObjectNode();
        n.put("format", 1);
        ObjectNode ledgers = n.putObject("ledgers");
        known.forEach(ledgers::put);
        MetadataObjects.write(path, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(n));
    }

    /** The id of {@code topic}, empty when it does not exist. */
    static Optional<String> topicId(Admin admin, String topic) throws Exception {
        try {
            TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
            return Optional.of(d.topicId().toString());
        } catch (ExecutionException e) {
            if (e.getCause() instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException) {
                return Optional.empty();
            }
            throw e;
        }
    }
}
