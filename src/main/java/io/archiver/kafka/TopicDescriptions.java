package io.archiver.kafka;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** The descriptions of topics, and which of them Kafka does not have, in the order asked for. */
public record TopicDescriptions(Map<String, TopicDescription> found, List<String> missing) {

    /** Describes {@code topics}, each answer within {@code timeout}; other failures than a missing topic are thrown. */
    public static TopicDescriptions of(Admin admin, Collection<String> topics, Duration timeout)
            throws ExecutionException, InterruptedException, TimeoutException {
        Map<String, KafkaFuture<TopicDescription>> answers = admin.describeTopics(topics).topicNameValues();
        Map<String, TopicDescription> found = new LinkedHashMap<>();
        List<String> missing = new ArrayList<>();
        for (String topic : topics) {
            try {
                found.put(topic, answers.get(topic).get(timeout.toMillis(), TimeUnit.MILLISECONDS));
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw e;
                }
                missing.add(topic);
            }
        }
        return new TopicDescriptions(found, missing);
    }
}
