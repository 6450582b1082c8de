package io.archiver.audit;

import io.archiver.kafka.LogScanner;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Asks Kafka what the audit needs: the partitions of the topics, which topics are compacted, each partition's
 * log start, last stable and log end offsets and the group's committed offsets; and it opens the scanners that
 * read the log itself ({@link LogScanner}), as a committed reader sees it or with the records of aborted
 * transactions.
 */
public final class KafkaInspector implements AutoCloseable {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    /** Audits read whole ranges: large fetches per partition. */
    private static final int FETCH_BYTES = 8 * 1024 * 1024;

    private final Properties client;
    private final Admin admin;

    /** {@code client}: bootstrap servers and the client properties (security settings included). */
    public KafkaInspector(Properties client) {
        this.client = client;
        this.admin = Admin.create(client);
    }

    /** Every partition of {@code topics}. */
    public List<TopicPartition> partitions(Collection<String> topics) throws Exception {
        return admin.describeTopics(topics).allTopicNames().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).values().stream()
                .flatMap(d -> d.partitions().stream().map(p -> new TopicPartition(d.name(), p.partition())))
                .collect(Collectors.toList());
    }

    /** Topics matching a pattern (internal topics excluded). */
    public List<String> topicsMatching(Pattern pattern) throws Exception {
        return admin.listTopics().names().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).stream()
                .filter(t -> pattern.matcher(t).matches())
                .sorted()
                .collect(Collectors.toList());
    }

    /** The topics among {@code topics} whose {@code cleanup.policy} includes {@code compact}. */
    public Set<String> compacted(Collection<String> topics) throws Exception {
        List<ConfigResource> resources = topics.stream()
                .map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t))
                .collect(Collectors.toList());
        Map<ConfigResource, Config> configs =
                admin.describeConfigs(resources).all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        Set<String> compacted = new HashSet<>();
        configs.forEach((resource, config) -> {
            var policy = config.get(TopicConfig.CLEANUP_POLICY_CONFIG);
            if (policy != null && policy.value() != null && policy.value().contains(TopicConfig.CLEANUP_POLICY_COMPACT)) {
                compacted.add(resource.name());
            }
        });
        return compacted;
    }

    public Map<TopicPartition, KafkaPartitionState> state(Collection<TopicPartition> partitions, String groupId)
            throws Exception {
        Map<TopicPartition, Long> start = offsets(partitions, OffsetSpec.earliest(), IsolationLevel.READ_UNCOMMITTED);
        Map<TopicPartition, Long> stable = offsets(partitions, OffsetSpec.latest(), IsolationLevel.READ_COMMITTED);
        Map<TopicPartition, Long> end = offsets(partitions, OffsetSpec.latest(), IsolationLevel.READ_UNCOMMITTED);
        Map<TopicPartition, OffsetAndMetadata> group =
                admin.listConsumerGroupOffsets(groupId).partitionsToOffsetAndMetadata().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        Map<TopicPartition, KafkaPartitionState> out = new HashMap<>();
        for (TopicPartition tp : partitions) {
            OffsetAndMetadata committed = group.get(tp);
            out.put(tp, new KafkaPartitionState(
                    start.get(tp), stable.get(tp), end.get(tp), committed == null ? -1 : committed.offset()));
        }
        return out;
    }

    private Map<TopicPartition, Long> offsets(Collection<TopicPartition> partitions, OffsetSpec spec, IsolationLevel isolation)
            throws Exception {
        Map<TopicPartition, ListOffsetsResultInfo> result =
                admin.listOffsets(partitions.stream().collect(Collectors.toMap(Function.identity(), tp -> spec)),
                                new ListOffsetsOptions(isolation))
                        .all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        return result.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
    }

    /** A scanner of the log as a reader of {@code isolation} sees it; the caller closes it. */
    LogScanner scanner(IsolationLevel isolation) {
        return scanner(isolation, false);
    }

    /** {@code withContents}: the visitor gets each record's key and value (views of the fetched bytes). */
    LogScanner scanner(IsolationLevel isolation, boolean withContents) {
        return new LogScanner(client, isolation, FETCH_BYTES, TIMEOUT, withContents);
    }

    @Override
    public void close() {
        admin.close();
    }
}
