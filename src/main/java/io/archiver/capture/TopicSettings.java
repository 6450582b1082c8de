package io.archiver.capture;

import java.util.Map;

/**
 * An archived topic as the source cluster had it: its partition count and the settings set on the topic
 * itself (not the broker's defaults), such as {@code cleanup.policy} or {@code retention.ms}.
 */
public record TopicSettings(String topic, int partitions, Map<String, String> configs) {

    public TopicSettings {
        configs = Map.copyOf(configs);
    }
}
