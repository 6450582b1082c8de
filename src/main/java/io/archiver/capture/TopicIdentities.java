package io.archiver.capture;

import io.archiver.archive.ArchiveRoot;
import io.archiver.config.UserFacingError;
import io.archiver.fs.MetadataObjects;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Which Kafka topic the archive holds under each name: the topic id (a UUID Kafka gives a topic when it is created)
 * of every archived topic, recorded in the archive ({@link ArchiveRoot#topicIdentities()}) the first time a job
 * archives it and checked at every start. A topic deleted and created again, or a Kafka cluster replaced, has the
 * same name and offsets that start again at 0: archiving it on top would mix two topics under one name, and
 * resuming at the archive's positions would skip every new record below them as "already archived". Such a start
 * is refused, naming the topic and what to do.
 */
public final class TopicIdentities {

    private static final Logger LOG = LoggerFactory.getLogger(TopicIdentities.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long DESCRIBE_TIMEOUT_SECONDS = 60;

    private final ArchiveRoot root;
    private final Map<String, String> recorded;
    private final Map<String, String> current;

    private TopicIdentities(ArchiveRoot root, Map<String, String> recorded, Map<String, String> current) {
        this.root = root;
        this.recorded = recorded;
        this.current = current;
    }

    /**
     * The identities of {@code topics} (those Kafka has) against those the archive at {@code root} recorded; fails
     * ({@link TopicRecreatedException}) when a topic's id differs from the one it archived.
     */
    public static TopicIdentities check(ArchiveRoot root, Admin admin, Collection<String> topics) throws IOException {
        Map<String, String> recorded = read(root);
        Map<String, String> current = describe(admin, topics);
        for (Map.Entry<String, String> topic : current.entrySet()) {
            String archived = recorded.get(topic.getKey());
            if (archived != null && !archived.equals(topic.getValue())) {
                throw new TopicRecreatedException(String.format(
                        "Topic '%s' is not the topic the archive %s holds: Kafka gives it the id %s, the archive was written from the "
                                + "topic with id %s. The topic was deleted and created again, or the Kafka cluster replaced, and its "
                                + "offsets started again at 0: archiving it here would mix two topics under one name and skip every new "
                                + "record below the archive's positions as archived. Archive it to a new sink.path (and, with a table, "
                                + "a new table.name-prefix); the archive keeps the old topic's records as they are.",
                        topic.getKey(), root, topic.getValue(), archived));
            }
        }
        return new TopicIdentities(root, recorded, current);
    }

    /** Records the identities of topics the archive had none of (the caller holds the archive's lease). */
    public void recordNew() throws IOException {
        Map<String, String> merged = new TreeMap<>(recorded);
        current.forEach(merged::putIfAbsent);
        if (merged.equals(recorded)) {
            return;
        }
        ObjectNode n = JSON.createObjectNode();
        n.put("format", 1);
        ObjectNode topics = n.putObject("topics");
        merged.forEach(topics::put);
        MetadataObjects.write(root.topicIdentities(), JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(n));
        current.keySet().stream().filter(t -> !recorded.containsKey(t))
                .forEach(t -> LOG.info("Recorded topic '{}' (id {}) as the topic the archive holds under that name", t, current.get(t)));
    }

    private static Map<String, String> read(ArchiveRoot root) throws IOException {
        Map<String, String> recorded = new TreeMap<>();
        Optional<byte[]> bytes = MetadataObjects.read(root.topicIdentities());
        if (bytes.isPresent()) {
            JsonNode topics = JSON.readTree(bytes.get()).path("topics");
            topics.fields().forEachRemaining(e -> recorded.put(e.getKey(), e.getValue().asText()));
        }
        return recorded;
    }

    /** The ids of those of {@code topics} Kafka has, asked in one request. */
    private static Map<String, String> describe(Admin admin, Collection<String> topics) throws IOException {
        Map<String, String> ids = new TreeMap<>();
        Map<String, KafkaFuture<TopicDescription>> described = admin.describeTopics(topics).topicNameValues();
        for (Map.Entry<String, KafkaFuture<TopicDescription>> topic : described.entrySet()) {
            try {
                ids.put(topic.getKey(), topic.getValue().get(DESCRIBE_TIMEOUT_SECONDS, TimeUnit.SECONDS).topicId().toString());
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw new IOException("Cannot describe topic '" + topic.getKey() + "' to check which topic the archive holds: "
                            + e.getCause(), e);
                }
            } catch (TimeoutException e) {
                throw new IOException("Kafka did not describe topic '" + topic.getKey() + "' within " + DESCRIBE_TIMEOUT_SECONDS + " s", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("Interrupted while describing topic '" + topic.getKey() + "'", e);
            }
        }
        return ids;
    }

    /** A start refused because a topic is not the one the archive holds under its name. */
    public static final class TopicRecreatedException extends IOException implements UserFacingError {
        private static final long serialVersionUID = 1L;

        TopicRecreatedException(String message) {
            super(message);
        }
    }
}
