package io.archiver.config;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.configuration.MemorySize;
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
import java.util.regex.PatternSyntaxException;
import java.util.stream.Collectors;

import static io.archiver.config.ArchiverOptions.*;

/**
 * The archiver's configuration, validated as a whole when it is built: unknown keys, values that do not
 * parse, missing required keys and contradicting keys all fail here, before any job is built, with a
 * message that names the key and the fix.
 */
public final class ArchiverConfig {

    private static final String REDACTED = "******";
    private static final String ISOLATION_LEVEL_KEY = KAFKA_PROPERTIES_PREFIX + "isolation.level";

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
        return getOptional(ERRORS_DEAD_LETTER_PATH)
                .orElse(stripTrailingSlash(get(SINK_PATH)) + "/_dead-letter");
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
                || k.contains("token");
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
            if (!isKnown(key)) {
                throw new ConfigException(unknownKeyMessage(key));
            }
        }
        for (ConfigOption<?> option : all()) {
            checkParses(option);
        }
        require(KAFKA_BOOTSTRAP_SERVERS, "e.g. kafka.bootstrap.servers: broker-1:9092,broker-2:9092");
        require(SINK_PATH, "e.g. sink.path: s3://my-bucket/kafka-archive");
        boolean hasTopics = !topics().isEmpty();
        boolean hasPattern = getOptional(KAFKA_TOPIC_PATTERN).isPresent();
        if (hasTopics == hasPattern) {
            throw new ConfigException(
                    "Set exactly one of '" + KAFKA_TOPICS.key() + "' (e.g. orders,payments) and '"
                            + KAFKA_TOPIC_PATTERN.key() + "' (e.g. orders\\..*); "
                            + (hasTopics ? "both are set." : "neither is set."));
        }
        for (String topic : topics()) {
            if (!topic.matches("[a-zA-Z0-9._-]+")) {
                throw new ConfigException(
                        "Invalid topic '" + topic + "' in '" + KAFKA_TOPICS.key()
                                + "': Kafka topic names use only letters, digits, '.', '_' and '-'.");
            }
        }
        if (hasPattern) {
            try {
                topicPattern();
            } catch (PatternSyntaxException e) {
                throw new ConfigException(
                        "Invalid regular expression for '" + KAFKA_TOPIC_PATTERN.key() + "': " + e.getDescription() + ".");
            }
        }
        try {
            consumerGroupPattern();
        } catch (PatternSyntaxException e) {
            throw new ConfigException(
                    "Invalid regular expression for '" + KAFKA_CONSUMER_GROUP_PATTERN.key() + "': " + e.getDescription() + ".");
        }
        String isolation = raw.get(ISOLATION_LEVEL_KEY);
        if (isolation != null && !isolation.trim().matches("read_committed|read_uncommitted")) {
            throw new ConfigException(
                    "Invalid value '" + isolation + "' for '" + ISOLATION_LEVEL_KEY + "': accepted values are read_committed"
                            + " (the default: committed records only) and read_uncommitted (also archives the records of"
                            + " aborted and still open transactions).");
        }
        start();
        stop();
        if (get(MODE) == Mode.STREAMING && raw.containsKey(KAFKA_STOP.key())) {
            throw new ConfigException(
                    "'" + KAFKA_STOP.key() + "' applies only to mode: batch; remove it or set mode: batch.");
        }
        String sink = sinkPath();
        if (!sink.matches("[a-zA-Z][a-zA-Z0-9+.-]*://.+")) {
            throw new ConfigException(
                    "Invalid value '" + sink + "' for '" + SINK_PATH.key()
                            + "': write a filesystem URI such as s3://bucket/prefix or file:///data/archive.");
        }
        positive(PARALLELISM, get(PARALLELISM) == -1 || get(PARALLELISM) > 0, "-1 or a positive integer");
        positive(RESTART_ATTEMPTS, get(RESTART_ATTEMPTS) >= 0, "0 or more");
        positive(CHECKPOINT_INTERVAL, get(CHECKPOINT_INTERVAL).toMillis() >= 10, "at least 10 ms");
        if (raw.containsKey(FENCING_LEASE_TIMEOUT.key()) && leaseTimeout().compareTo(get(CHECKPOINT_INTERVAL).multipliedBy(2)) < 0) {
            throw new ConfigException(
                    "Invalid value '" + leaseTimeout().toMillis() + " ms' for '" + FENCING_LEASE_TIMEOUT.key()
                            + "': it must be at least twice '" + CHECKPOINT_INTERVAL.key() + "' (" + get(CHECKPOINT_INTERVAL).toMillis()
                            + " ms), since the lease is renewed at every checkpoint; raise it or checkpoint more often.");
        }
        positive(SINK_ROLL_MAX_PART_SIZE, get(SINK_ROLL_MAX_PART_SIZE).getBytes() > 0, "a positive size");
        positive(SINK_PARQUET_ROW_GROUP_SIZE, get(SINK_PARQUET_ROW_GROUP_SIZE).getBytes() >= MemorySize.parse("64kb").getBytes(), "at least 64 kb");
        positive(SINK_PARQUET_PAGE_SIZE, get(SINK_PARQUET_PAGE_SIZE).getBytes() >= 1024, "at least 1 kb");
        long buffers = get(SINK_PARQUET_BUFFER_MEMORY).getBytes();
        positive(SINK_PARQUET_BUFFER_MEMORY, buffers == 0 || buffers >= MemorySize.parse("1mb").getBytes(), "0 (no bound) or at least 1 mb");
        int gzipLevel = get(SINK_JSONL_GZIP_LEVEL);
        positive(SINK_JSONL_GZIP_LEVEL, gzipLevel >= 1 && gzipLevel <= 9, "1 (fastest) to 9 (smallest)");
        zstdLevel(SINK_JSONL_ZSTD_LEVEL);
        zstdLevel(SINK_PARQUET_ZSTD_LEVEL);
        positive(SINK_ROLL_INACTIVITY, !get(SINK_ROLL_INACTIVITY).isNegative(), "a positive duration");
        positive(SINK_ROLL_INTERVAL, !get(SINK_ROLL_INTERVAL).isNegative(), "a positive duration");
        positive(SINK_BUCKET_CHECK_INTERVAL, get(SINK_BUCKET_CHECK_INTERVAL).toMillis() > 0, "a positive duration");
        positive(SINK_UPLOAD_THREADS, get(SINK_UPLOAD_THREADS) >= 1 && get(SINK_UPLOAD_THREADS) <= 64, "1 to 64");
        positive(SINK_COMMIT_THREADS, get(SINK_COMMIT_THREADS) >= 1 && get(SINK_COMMIT_THREADS) <= 64, "1 to 64");
        if (getOptional(SINK_S3_KMS_KEY_ID).isPresent() && get(SINK_S3_ENCRYPTION) != S3Encryption.SSE_KMS) {
            throw new ConfigException(
                    "'" + SINK_S3_KMS_KEY_ID.key() + "' applies only to '" + SINK_S3_ENCRYPTION.key() + ": sse-kms' (it is "
                            + get(SINK_S3_ENCRYPTION) + "); set that too, or remove the key id.");
        }
        if (get(SINK_S3_ENCRYPTION) != S3Encryption.DEFAULT && !sink.startsWith("s3")) {
            throw new ConfigException(
                    "'" + SINK_S3_ENCRYPTION.key() + ": " + get(SINK_S3_ENCRYPTION) + "' applies to an archive in S3, and '"
                            + SINK_PATH.key() + "' is " + sink + "; remove it or archive to s3://bucket/prefix.");
        }
        if (get(SINK_LAYOUT) == SinkLayout.PER_TOPIC && get(SINK_FORMAT) != ArchiveFormat.PARQUET) {
            throw new ConfigException(
                    "'" + SINK_LAYOUT.key() + ": per-topic' needs '" + SINK_FORMAT.key() + ": parquet' (its files hold many partitions, "
                            + "found by the row groups' statistics, which JSON Lines has not); set " + SINK_FORMAT.key()
                            + ": parquet, or " + SINK_LAYOUT.key() + ": per-partition.");
        }
        if (!get(SINK_PART_PREFIX).matches("[a-zA-Z0-9._-]+")) {
            throw new ConfigException(
                    "Invalid value '" + get(SINK_PART_PREFIX) + "' for '" + SINK_PART_PREFIX.key()
                            + "': use letters, digits, '.', '_' and '-' only.");
        }
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

    private void require(ConfigOption<String> option, String example) {
        if (getOptional(option).isEmpty()) {
            throw new ConfigException("Missing required key '" + option.key() + "' (" + example + ").");
        }
    }

    private void zstdLevel(ConfigOption<Integer> option) {
        positive(option, get(option) >= 1 && get(option) <= 19, "1 (fastest) to 19 (smallest)");
    }

    private void positive(ConfigOption<?> option, boolean ok, String expected) {
        if (!ok) {
            throw new ConfigException(
                    "Invalid value '" + conf.get(option) + "' for '" + option.key() + "': expected " + expected + ".");
        }
    }

    private static boolean isKnown(String key) {
        return key.startsWith(KAFKA_PROPERTIES_PREFIX)
                || key.startsWith(FLINK_PREFIX)
                || all().stream().anyMatch(o -> o.key().equals(key));
    }

    private static String unknownKeyMessage(String key) {
        String hint = CloseNames.closest(key, all().stream().map(ConfigOption::key).toList())
                .map(nearest -> " Did you mean '" + nearest + "'?")
                .orElse("");
        return "Unknown configuration key '" + key + "'." + hint
                + " Valid keys are listed by the 'options' command; Kafka client properties go under '"
                + KAFKA_PROPERTIES_PREFIX + "', Flink settings under '" + FLINK_PREFIX + "'.";
    }
}
