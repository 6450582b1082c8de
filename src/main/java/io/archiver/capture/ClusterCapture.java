package io.archiver.capture;

import io.archiver.fs.IoThreads;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Captures, when the job starts and then every {@code kafka.consumer-groups.interval}, the archived topics'
 * partition counts and settings and the chosen consumer groups' committed offsets of them, and writes what
 * changed to the {@link CaptureStore}. One committer of the job captures (subtask 0, whether or not it has
 * anything to commit); the others get a capture that does nothing. It runs on a thread of its own, never on
 * the task thread (a slow broker must not stall it). A failure is logged (once until it changes) and the next
 * interval tries again; it never fails the job. Closing waits a bounded time for a capture under way.
 */
public final class ClusterCapture implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterCapture.class);
    private static final long TIMEOUT_MS = 10_000;

    private final CaptureSettings settings;
    private final Properties client;
    private final CaptureStore store;
    private final Map<String, Map<TopicPartition, Long>> writtenGroups = new HashMap<>();
    private final Map<String, TopicSettings> writtenTopics = new HashMap<>();
    private ScheduledExecutorService thread;
    private Admin admin;
    private String lastFailure;

    private ClusterCapture(CaptureSettings settings, Properties client) {
        this.settings = settings;
        this.client = client;
        this.store = settings == null ? null : new CaptureStore(settings.root());
    }

    /**
     * The capture of the committer of {@code subtask}: for subtask 0 it captures at once and then every
     * interval, on a thread of its own, whether or not this subtask commits anything (it may read no partition);
     * for the others it does nothing.
     */
    public static ClusterCapture forCommitter(CaptureSettings settings, Properties client, int subtask) {
        ClusterCapture capture = new ClusterCapture(subtask == 0 && settings.enabled() ? settings : null, client);
        capture.start();
        return capture;
    }

    private void start() {
        if (settings != null) {
            thread = Executors.newSingleThreadScheduledExecutor(IoThreads.daemon("archive-capture"));
            thread.scheduleWithFixedDelay(this::capture, 0, settings.intervalMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private void capture() {
        try {
            if (admin == null) {
                Properties props = new Properties();
                props.putAll(client);
                props.put("default.api.timeout.ms", (int) TIMEOUT_MS);
                props.put("request.timeout.ms", (int) TIMEOUT_MS);
                admin = Admin.create(props);
            }
            captureTopics();
            captureGroups();
            if (lastFailure != null) {
                LOG.info("Capturing topic settings and consumer group offsets works again");
                lastFailure = null;
            }
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            String failure = String.valueOf(e.getMessage());
            if (!failure.equals(lastFailure)) {
                LOG.warn("Cannot capture topic settings and consumer group offsets (tried again in {} ms; archiving goes on): {}",
                        settings.intervalMillis(), failure);
                lastFailure = failure;
            }
        }
    }

    private void captureTopics() throws Exception {
        Set<String> topics = new LinkedHashSet<>(settings.topics());
        if (topics.isEmpty()) {
            for (String t : admin.listTopics().names().get(TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                if (settings.archives(t)) {
                    topics.add(t);
                }
            }
        }
        if (topics.isEmpty()) {
            return;
        }
        Map<String, TopicDescription> described = new HashMap<>();
        admin.describeTopics(topics).topicNameValues().forEach((name, f) -> {
            try {
                described.put(name, f.get(TIMEOUT_MS, TimeUnit.MILLISECONDS));
            } catch (Exception missing) {
                // deleted meanwhile or not created yet: nothing to capture
            }
        });
        List<ConfigResource> resources = new ArrayList<>();
        described.keySet().forEach(t -> resources.add(new ConfigResource(ConfigResource.Type.TOPIC, t)));
        Map<ConfigResource, Config> configs = admin.describeConfigs(resources).all().get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
        for (Map.Entry<String, TopicDescription> e : described.entrySet()) {
            Map<String, String> own = new HashMap<>();
            Config config = configs.get(new ConfigResource(ConfigResource.Type.TOPIC, e.getKey()));
            if (config != null) {
                for (ConfigEntry entry : config.entries()) {
                    if (entry.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG && !entry.isSensitive() && entry.value() != null) {
                        own.put(entry.name(), entry.value());
                    }
                }
            }
            TopicSettings topic = new TopicSettings(e.getKey(), e.getValue().partitions().size(), own);
            if (!topic.equals(writtenTopics.get(topic.topic()))) {
                store.write(topic);
                writtenTopics.put(topic.topic(), topic);
            }
        }
    }

    private void captureGroups() throws Exception {
        Set<String> groups = new LinkedHashSet<>(settings.namedGroups());
        if (settings.hasGroupPattern()) {
            for (GroupListing g : admin.listGroups(ListGroupsOptions.forConsumerGroups()).all().get(TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                if (settings.patternTakes(g.groupId())) {
                    groups.add(g.groupId());
                }
            }
        }
        if (groups.isEmpty()) {
            return;
        }
        Map<String, ListConsumerGroupOffsetsSpec> specs = new HashMap<>();
        groups.forEach(g -> specs.put(g, new ListConsumerGroupOffsetsSpec()));
        Map<String, Map<TopicPartition, OffsetAndMetadata>> all =
                admin.listConsumerGroupOffsets(specs).all().get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
        Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        for (String group : groups) {
            Map<TopicPartition, Long> offsets = new HashMap<>();
            all.getOrDefault(group, Map.of()).forEach((tp, o) -> {
                if (o != null && settings.archives(tp.topic())) {
                    offsets.put(tp, o.offset());
                }
            });
            if (!offsets.isEmpty() && !offsets.equals(writtenGroups.get(group))) {
                store.write(new GroupOffsets(group, now, offsets));
                writtenGroups.put(group, offsets);
            }
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (thread != null) {
            thread.shutdown();
            if (!thread.awaitTermination(TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                thread.shutdownNow();
            }
        }
        if (admin != null) {
            admin.close(Duration.ZERO);
        }
    }
}
