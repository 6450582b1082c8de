package io.archiver.config;

import org.apache.flink.configuration.ConfigOption;

import java.time.Duration;
import java.util.regex.PatternSyntaxException;

import static org.apache.flink.configuration.ConfigOptions.key;

/** What is archived and from where: the Kafka cluster, topics, consumer groups captured, start and stop positions, resuming from the archive. Part of the option catalog {@link ArchiverOptions}. */
public final class SourceOptions {

    /** Prefix of Kafka consumer properties handed to the source as they are. */
    public static final String KAFKA_PROPERTIES_PREFIX = "kafka.properties.";

    public static final ConfigOption<String> KAFKA_BOOTSTRAP_SERVERS =
            key("kafka.bootstrap.servers")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("Kafka bootstrap servers, host:port[,host:port...]. Required.");

    public static final ConfigOption<String> KAFKA_TOPICS =
            key("kafka.topics")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Comma-separated topics to archive. Exactly one of kafka.topics and kafka.topic-pattern is required.");

    public static final ConfigOption<String> KAFKA_TOPIC_PATTERN =
            key("kafka.topic-pattern")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Java regular expression of topics to archive; topics created later are picked up by partition discovery.");

    public static final ConfigOption<String> KAFKA_GROUP_ID =
            key("kafka.group.id")
                    .stringType()
                    .defaultValue("kafka-s3-archiver")
                    .withDescription(
                            "Consumer group. Offsets are committed to it on every completed checkpoint, for lag monitoring only: the position lives in Flink's checkpoints.");

    public static final ConfigOption<String> KAFKA_CONSUMER_GROUPS =
            key("kafka.consumer-groups")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Comma-separated consumer groups whose committed offsets of the archived topics are archived with the commits "
                                    + "(under _archiver/groups/), so that a restore can give each group its place in the restored topics.");

    public static final ConfigOption<String> KAFKA_CONSUMER_GROUP_PATTERN =
            key("kafka.consumer-group-pattern")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Java regular expression of consumer groups whose offsets are archived, as kafka.consumer-groups (both may be set).");

    public static final ConfigOption<Duration> KAFKA_CONSUMER_GROUPS_INTERVAL =
            key("kafka.consumer-groups.interval")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(1))
                    .withDescription(
                            "How often the consumer groups' offsets (and the archived topics' settings) are captured, from the job's start; only what moved is written.");

    public static final ConfigOption<String> KAFKA_START =
            key("kafka.start")
                    .stringType()
                    .defaultValue("earliest")
                    .withDescription(
                            "Where to start when the job has no checkpoint or savepoint: earliest | latest | committed | timestamp:<epoch-ms>. "
                                    + "committed uses the group's offsets and falls back to kafka.start.committed-fallback.");

    public static final ConfigOption<String> KAFKA_START_COMMITTED_FALLBACK =
            key("kafka.start.committed-fallback")
                    .stringType()
                    .defaultValue("earliest")
                    .withDescription(
                            "For kafka.start=committed: where partitions without a committed offset start: earliest | latest.");

    public static final ConfigOption<String> KAFKA_STOP =
            key("kafka.stop")
                    .stringType()
                    .defaultValue("latest")
                    .withDescription(
                            "Batch mode only: where to stop. latest (the last stable offset when the job starts: never inside an open transaction) | timestamp:<epoch-ms> | "
                                    + "offsets:<topic>:<partition>=<offset>[,...] (exclusive; partitions not listed stop at latest).");

    public static final ConfigOption<Boolean> RESUME_FROM_ARCHIVE =
            key("resume.from-archive")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "When the job starts without checkpoint or savepoint, resume every partition right after the last offset committed to the archive "
                                    + "(read from the position records under <sink.path>/_archiver/subtask-positions, one object per committer subtask); partitions with nothing archived start at kafka.start. "
                                    + "Records below a partition's archive position are also skipped when a partition is discovered later. "
                                    + "false: always start at kafka.start (the archive may then get duplicates).");

    public static final ConfigOption<Duration> KAFKA_PARTITION_DISCOVERY_INTERVAL =
            key("kafka.partition-discovery.interval")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(1))
                    .withDescription(
                            "How often streaming mode looks for new partitions and topics; 0 turns discovery off.");

    /** Fails, naming the key and the fix, on topics, patterns, isolation level, start and stop that cannot work. */
    static void validate(ArchiverConfig config) {
        boolean hasTopics = !config.topics().isEmpty();
        boolean hasPattern = config.getOptional(KAFKA_TOPIC_PATTERN).isPresent();
        if (hasTopics == hasPattern) {
            throw new ConfigException(
                    "Set exactly one of '" + KAFKA_TOPICS.key() + "' (e.g. orders,payments) and '"
                            + KAFKA_TOPIC_PATTERN.key() + "' (e.g. orders\\..*); "
                            + (hasTopics ? "both are set." : "neither is set."));
        }
        for (String topic : config.topics()) {
            if (!topic.matches("[a-zA-Z0-9._-]+")) {
                throw new ConfigException(
                        "Invalid topic '" + topic + "' in '" + KAFKA_TOPICS.key()
                                + "': Kafka topic names use only letters, digits, '.', '_' and '-'.");
            }
        }
        if (hasPattern) {
            try {
                config.topicPattern();
            } catch (PatternSyntaxException e) {
                throw new ConfigException(
                        "Invalid regular expression for '" + KAFKA_TOPIC_PATTERN.key() + "': " + e.getDescription() + ".");
            }
        }
        try {
            config.consumerGroupPattern();
        } catch (PatternSyntaxException e) {
            throw new ConfigException(
                    "Invalid regular expression for '" + KAFKA_CONSUMER_GROUP_PATTERN.key() + "': " + e.getDescription() + ".");
        }
        String isolation = config.rawValue(ArchiverConfig.ISOLATION_LEVEL_KEY);
        if (isolation != null && !isolation.trim().matches("read_committed|read_uncommitted")) {
            throw new ConfigException(
                    "Invalid value '" + isolation + "' for '" + ArchiverConfig.ISOLATION_LEVEL_KEY + "': accepted values are read_committed"
                            + " (the default: committed records only) and read_uncommitted (also archives the records of"
                            + " aborted and still open transactions).");
        }
        config.start();
        config.stop();
        if (config.get(JobOptions.MODE) == Mode.STREAMING && config.isSet(KAFKA_STOP.key())) {
            throw new ConfigException(
                    "'" + KAFKA_STOP.key() + "' applies only to mode: batch; remove it or set mode: batch.");
        }
    }

    private SourceOptions() {}
}
