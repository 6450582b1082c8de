package io.archiver.capture;

import io.archiver.archive.ArchiveRoot;
import io.archiver.config.ArchiverConfig;

import java.io.Serializable;
import java.util.List;
import java.util.regex.Pattern;

import static io.archiver.config.SourceOptions.KAFKA_CONSUMER_GROUPS_INTERVAL;
import static io.archiver.config.SourceOptions.KAFKA_GROUP_ID;

/**
 * What the archiver records of the source cluster besides its records, in the job graph: the archived topics
 * (their partition counts and settings, for a restore that creates them) and the consumer groups whose
 * offsets of those topics it archives ({@code kafka.consumer-groups}, {@code kafka.consumer-group-pattern}).
 */
public final class CaptureSettings implements Serializable {

    private static final long serialVersionUID = 1L;

    private final ArchiveRoot root;
    private final List<String> topics;
    private final String topicPattern;
    private final List<String> groups;
    private final String groupPattern;
    private final String ownGroup;
    private final long intervalMillis;

    private CaptureSettings(ArchiveRoot root, List<String> topics, String topicPattern, List<String> groups, String groupPattern,
            String ownGroup, long intervalMillis) {
        this.root = root;
        this.topics = List.copyOf(topics);
        this.topicPattern = topicPattern;
        this.groups = List.copyOf(groups);
        this.groupPattern = groupPattern;
        this.ownGroup = ownGroup;
        this.intervalMillis = intervalMillis;
    }

    public static CaptureSettings of(ArchiverConfig config) {
        return new CaptureSettings(
                ArchiveRoot.of(config),
                config.topics(),
                config.topicPattern().map(Pattern::pattern).orElse(null),
                config.consumerGroups(),
                config.consumerGroupPattern().map(Pattern::pattern).orElse(null),
                config.get(KAFKA_GROUP_ID),
                config.get(KAFKA_CONSUMER_GROUPS_INTERVAL).toMillis());
    }

    /** Captures nothing (tests of the commit protocol without a Kafka cluster). */
    public static CaptureSettings none() {
        return new CaptureSettings(null, List.of(), null, List.of(), null, null, 0);
    }

    boolean enabled() {
        return root != null;
    }

    ArchiveRoot root() {
        return root;
    }

    long intervalMillis() {
        return intervalMillis;
    }

    /** The topics named by {@code kafka.topics}; empty when a pattern selects them. */
    List<String> topics() {
        return topics;
    }

    boolean archives(String topic) {
        return topicPattern == null ? topics.contains(topic) : Pattern.matches(topicPattern, topic);
    }

    /** The groups named by {@code kafka.consumer-groups}. */
    List<String> namedGroups() {
        return groups;
    }

    boolean hasGroupPattern() {
        return groupPattern != null;
    }

    /** Whether {@code group} matches {@code kafka.consumer-group-pattern}; never the archiver's own group. */
    boolean patternTakes(String group) {
        return groupPattern != null && !group.equals(ownGroup) && Pattern.matches(groupPattern, group);
    }
}
