package io.archiver.config;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.kafka.common.IsolationLevel;

import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static io.archiver.config.CheckpointOptions.*;
import static io.archiver.config.FencingOptions.*;
import static io.archiver.config.JobOptions.*;
import static io.archiver.config.RecordOptions.*;
import static io.archiver.config.SinkOptions.*;
import static io.archiver.config.SourceOptions.*;

/**
 * The archiver's configuration, validated as a whole when it is built: unknown keys, values that do not
 * parse, missing required keys and contradicting keys all fail here, before any job is built, with a
 * message that names the key and the fix.
 */
public final class ArchiverConfig {

    private static final String REDACTED = "******";
    static final String ISOLATION_LEVEL_KEY = KAFKA_PROPERTIES_PREFIX + "isolation.level";

    private static final Duration DEFAULT_LEASE_TIMEOUT = Duration.ofSeconds(60);

    private final Map<String, String> raw;
    private final Configuration conf;

    private ArchiverConfig(Map<String, String> raw) {
        this.raw = Collections.unmodifiableMap(new TreeMap<>(raw));
        this.conf = Configuration.fromMap(raw);
    }

    /** Validates {@code settings} (option key to value) and returns the configuration. */
    public static ArchiverConfig of(Map<String, String> settings) {
        ArchiverConfig config = new ArchiverConfig(settings);
        config.validate();
        return config;
    }

    public <T> T get(ConfigOption<T> option) {
        return conf.get(option);
    }

    public Optional<String> getOptional(ConfigOption<String> option) {
        return conf.getOptional(option).map(String::trim).filter(s -> !s.isEmpty());
    }

    /** Topics of {@code kafka.topics}, or empty when a pattern is configured. */
    public List<String> topics() {
        return getOptional(KAFKA_TOPICS)
                .map(s -> Arrays.stream(s.split(",")).map(String::trim).filter(t -> !t.isEmpty()))
                .map(stream -> stream.collect(Collectors.toList()))
                .orElse(List.of());
    }

    public Optional<Pattern> topicPattern() {
        return getOptional(KAFKA_TOPIC_PATTERN).map(Pattern::compile);
    }

    /** Groups of {@code kafka.consumer-groups}, empty when none is set. */
    public List<String> consumerGroups() {
        return getOptional(KAFKA_CONSUMER_GROUPS)
                .map(s -> Arrays.stream(s.split(",")).map(String::trim).filter(g -> !g.isEmpty()).collect(Collectors.toList()))
                .orElse(List.of());
    }

    public Optional<Pattern> consumerGroupPattern() {
        return getOptional(KAFKA_CONSUMER_GROUP_PATTERN).map(Pattern::compile);
    }

    /** {@code kafka.start}, with {@code kafka.start.committed-fallback}. */
    public PositionSpec start() {
        return PositionSpec.start(
                KAFKA_START.key(), get(KAFKA_START), KAFKA_START_COMMITTED_FALLBACK.key(), get(KAFKA_START_COMMITTED_FALLBACK));
    }

    /** {@code fencing.lease-timeout}, by default the larger of 60 s and three checkpoint intervals. */
    public Duration leaseTimeout() {
        Duration threeCheckpoints = get(CHECKPOINT_INTERVAL).multipliedBy(3);
        return conf.getOptional(FENCING_LEASE_TIMEOUT)
                .orElse(threeCheckpoints.compareTo(DEFAULT_LEASE_TIMEOUT) > 0 ? threeCheckpoints : DEFAULT_LEASE_TIMEOUT);
    }

    /** {@code kafka.stop} (batch mode). */
    public PositionSpec stop() {
        return PositionSpec.stop(KAFKA_STOP.key(), get(KAFKA_STOP));
    }

    /**
     * How the source reads transactional topics: {@code kafka.properties.isolation.level}, by default {@code
     * read_committed} (only committed records, as every downstream consumer of the topic sees it).
     */
    public IsolationLevel isolationLevel() {
        String value = raw.get(ISOLATION_LEVEL_KEY);
        return value == null ? IsolationLevel.READ_COMMITTED : IsolationLevel.valueOf(value.trim().toUpperCase(Locale.ROOT));
    }

    /** The {@code kafka.properties.*} entries, prefix removed. */
    public Properties kafkaProperties() {
        Properties props = new Properties();
        withPrefix(KAFKA_PROPERTIES_PREFIX).forEach(props::setProperty);
        return props;
    }

    /** The {@code kafka.properties.*} entries with {@code bootstrap.servers}: what every Kafka client of the project needs. */
    public Properties kafkaClientProperties() {
        Properties props = kafkaProperties();
        props.setProperty("bootstrap.servers", get(KAFKA_BOOTSTRAP_SERVERS));
        return props;
    }

    /** The {@code flink.*} entries, prefix removed, as a Flink configuration. */
    public Configuration flinkSettings() {
        return Configuration.fromMap(withPrefix(FLINK_PREFIX));
    }

    public String deadLetterPath() {
        return getOptional(ERRORS_DEAD_LETTER_PATH).orElse(defaultDeadLetterPath(sinkPath()));
    }

    /**
     * The age from which an incomplete upload or a temporary object is an orphan (audit and {@code cleanup} unless
     * told otherwise): {@code sink.orphaned-uploads.abort-after}, after which the running job aborts it, or its
     * default where the sweep is off.
     */
    public Duration orphanAge() {
        Duration abortAfter = get(SinkOptions.SINK_ORPHANED_UPLOADS_ABORT_AFTER);
        return abortAfter.isZero() ? SinkOptions.SINK_ORPHANED_UPLOADS_ABORT_AFTER.defaultValue() : abortAfter;
    }

    /** Where dead letters go unless {@code errors.dead-letter.path} says otherwise: {@code <sink.path>/_dead-letter}. */
    public static String defaultDeadLetterPath(String sinkPath) {
        return sinkPath + "/_dead-letter";
    }

    public String sinkPath() {
        return stripTrailingSlash(get(SINK_PATH));
    }

    /** Every explicitly set key with its value, secrets replaced by {@value #REDACTED}. */
    public Map<String, String> redacted() {
        Map<String, String> out = new TreeMap<>();
        raw.forEach((k, v) -> out.put(k, isSensitive(k) ? REDACTED : v));
        return out;
    }

    /** A copy with {@code overrides} applied on top, validated again. */
    public ArchiverConfig with(Map<String, String> overrides) {
        Map<String, String> merged = new TreeMap<>(raw);
        merged.putAll(overrides);
        return of(merged);
    }

    /** The explicitly set keys and values (secrets included; never log this). */
    public Map<String, String> toMap() {
        return raw;
    }

    static boolean isSensitive(String key) {
        String k = key.toLowerCase();
        return GlobalConfiguration.isSensitive(k)
                || k.contains("jaas")
                || k.contains("access-key")
                || k.contains("access.key")
                || k.contains("token")
                || k.contains("credential");
    }

    private Map<String, String> withPrefix(String prefix) {
        Map<String, String> out = new TreeMap<>();
        raw.forEach((k, v) -> {
            if (k.startsWith(prefix)) {
                out.put(k.substring(prefix.length()), v);
            }
        });
        return out;
    }

    private static String stripTrailingSlash(String path) {
        String p = path.trim();
        return p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
    }

    // ---------------------------------------------------------------- validation

    private void validate() {
        for (String key : raw.keySet()) {
            if (!isKnownKey(key)) {
                throw new ConfigException(unknownKeyMessage(key));
            }
        }
        for (ConfigOption<?> option : ArchiverOptions.all()) {
            checkParses(option);
        }
        require(KAFKA_BOOTSTRAP_SERVERS, "e.g. kafka.bootstrap.servers: broker-1:9092,broker-2:9092");
        require(SINK_PATH, "e.g. sink.path: s3://my-bucket/kafka-archive");
        SourceOptions.validate(this);
        SinkOptions.validatePath(this);
        JobOptions.validate(this);
        CheckpointOptions.validate(this);
        RestoreOptions.validate(this);
        FencingOptions.validate(this);
        SinkOptions.validate(this);
        SchemaRegistryOptions.validate(this);
        TableOptions.validate(this);
    }

    /** Whether {@code key} is set (not only defaulted). */
    boolean isSet(String key) {
        return raw.containsKey(key);
    }

    /** The value of {@code key} as given, or null. */
    String rawValue(String key) {
        return raw.get(key);
    }

    private void checkParses(ConfigOption<?> option) {
        try {
            conf.get(option);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(
                    "Invalid value '" + raw.get(option.key()) + "' for '" + option.key() + "': accepted "
                            + OptionsDocumentation.accepted(option) + ".");
        }
    }

    void require(ConfigOption<String> option, String example) {
        if (getOptional(option).isEmpty()) {
            throw new ConfigException("Missing required key '" + option.key() + "' (" + example + ").");
        }
    }

    /** Fails naming {@code option} unless it is a zstd level, 1 to 19. */
    public void zstdLevel(ConfigOption<Integer> option) {
        positive(option, get(option) >= 1 && get(option) <= 19, "1 (fastest) to 19 (smallest)");
    }

    /** Fails naming {@code option}, its value and what it takes ({@code expected}) unless {@code ok}. */
    public void positive(ConfigOption<?> option, boolean ok, String expected) {
        if (!ok) {
            throw new ConfigException(
                    "Invalid value '" + conf.get(option) + "' for '" + option.key() + "': expected " + expected + ".");
        }
    }

    /** Whether {@code key} is a configuration key: an option, or a pass-through {@code kafka.properties.*} or {@code flink.*} key. */
    public static boolean isKnownKey(String key) {
        return key.startsWith(KAFKA_PROPERTIES_PREFIX)
                || key.startsWith(FLINK_PREFIX)
                || ArchiverOptions.all().stream().anyMatch(o -> o.key().equals(key));
    }

    private static String unknownKeyMessage(String key) {
        String hint = CloseNames.closest(key, ArchiverOptions.all().stream().map(ConfigOption::key).toList())
                .map(nearest -> " Did you mean '" + nearest + "'?")
                .orElse("");
        return "Unknown configuration key '" + key + "'." + hint
                + " Valid keys are listed by the 'options' command; Kafka client properties go under '"
                + KAFKA_PROPERTIES_PREFIX + "', Flink settings under '" + FLINK_PREFIX + "'.";
    }
}
