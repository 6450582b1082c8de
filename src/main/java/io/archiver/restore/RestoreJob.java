package io.archiver.restore;

import io.archiver.archive.ArchiveRoot;
import io.archiver.capture.CaptureStore;
import io.archiver.capture.TopicSettings;
import io.archiver.config.ArchiverConfig;
import io.archiver.config.ConfigException;
import io.archiver.job.JobSettings;
import io.archiver.kafka.AdminCalls;
import io.archiver.kafka.TopicDescriptions;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;
import io.archiver.restore.ledger.RestoreProgress;
import io.archiver.restore.ledger.RestoredRecords;
import io.archiver.restore.plan.RestorePlan;
import io.archiver.restore.plan.RestoreSelection;
import io.archiver.restore.plan.UnitRecords;
import io.archiver.restore.source.RestoreSource;
import io.archiver.restore.source.RestoreSplit;

import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.RetriableException;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static io.archiver.config.JobOptions.JOB_NAME;
import static io.archiver.config.RestoreOptions.RESTORE_CHECKPOINT_INTERVAL;
import static io.archiver.config.SourceOptions.KAFKA_BOOTSTRAP_SERVERS;

/**
 * The restore job: each archived partition of the plan is read by one reader, its read units in offset order
 * ({@link RestoreSource}), each record written to the same partition number of its target topic by Flink's
 * {@code KafkaSink} in exactly-once mode (Kafka transactions committed with each checkpoint), so that a
 * read_committed consumer of the target sees every restored record once, in order, also after the job
 * failed and recovered from its checkpoint. Always a streaming job over a bounded input: the checkpoints
 * commit the transactions as it goes and the job ends when every file is written.
 *
 * <pre>
 *  archive files, a partition per reader ──► KafkaSink (exactly once)
 *  (uid restore-read)                         (restore-kafka-sink)
 * </pre>
 */
public final class RestoreJob {

    /** Kafka's default upper bound (transaction.max.timeout.ms): a transaction spans one checkpoint interval. */
    private static final int TRANSACTION_TIMEOUT_MS = 900_000;
    /** When the brokers do not say theirs (no Describe Configs on the cluster): the Kafka producer's default. */
    private static final int UNKNOWN_BROKER_TIMEOUT_MS = 60_000;
    /** How long one broker is asked for a setting before the next is. */
    private static final int BROKER_ANSWER_MS = 10_000;
    private static final int BATCH_BYTES = 512 * 1024;

    private RestoreJob() {}

    /**
     * Adds the restore of {@code plan}, as {@code selection} says, to {@code env} (its settings from {@link
     * #settings}), after checking that every target topic can take it; missing targets are created when
     * {@code createTopics}.
     */
    public static void build(StreamExecutionEnvironment env, ArchiverConfig config, RestorePlan plan, RestoreSelection selection,
            boolean createTopics, PrintWriter out) throws Exception {
        build(env, config, plan, selection, createTopics, false, out);
    }

    /**
     * {@link #build(StreamExecutionEnvironment, ArchiverConfig, RestorePlan, RestoreSelection, boolean, PrintWriter)}; with
     * {@code allowStaleLatest} a changed selection may write a key's older records after newer ones on a compacted target
     * ({@link CompactedTargetOrder}), else such a run is refused.
     */
    public static void build(StreamExecutionEnvironment env, ArchiverConfig config, RestorePlan plan, RestoreSelection selection,
            boolean createTopics, boolean allowStaleLatest, PrintWriter out) throws Exception {
        Map<String, Integer> targetPartitions = checkTargets(config, plan, selection, createTopics, out);
        String restoreId = transactionalIdPrefix(config, selection);
        int transactionTimeoutMs = transactionTimeoutMs(config, out);
        RestoreProgress progress = RestoreProgress.forWriting(config, plan, selection, out);
        CompactedTargetOrder.check(config, plan, selection, progress, allowStaleLatest, out);
        List<RestoreSplit> partitions = new ArrayList<>();
        plan.partitions().forEach((tp, planned) -> partitions.add(RestoreSplit.unread(tp.toString(),
                RestorePlan.readUnits(planned).stream().map(UnitRecords::paths).toList())));
        env.fromSource(new RestoreSource(PayloadFormats.of(config), selection, progress, partitions), WatermarkStrategy.noWatermarks(),
                        "Read archive files", TypeInformation.of(ArchiveRecord.class))
                .uid("restore-read")
                .sinkTo(sink(config, selection, targetPartitions, restoreId, transactionTimeoutMs))
                .uid("restore-kafka-sink")
                .name("Kafka sink (exactly once)");
    }

    /**
     * The job's Flink settings: the archiver's (restarts, parallelism, checkpoint storage), always streaming with
     * exactly-once checkpoints every {@code restore.checkpoint-interval}, also when the configuration is a batch
     * archiver's: without checkpoints the Kafka sink commits each subtask's records when its input ends, and a
     * failure after one subtask ended would write its records again. The checkpoint that commits the last records
     * does not wait for the interval: Flink triggers one as soon as every task has read all of its input.
     */
    public static Configuration settings(ArchiverConfig config) {
        Configuration conf = JobSettings.of(config);
        conf.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.STREAMING);
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, config.get(RESTORE_CHECKPOINT_INTERVAL));
        conf.set(CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE, CheckpointingMode.EXACTLY_ONCE);
        return conf;
    }

    private static KafkaSink<ArchiveRecord> sink(ArchiverConfig config, RestoreSelection selection, Map<String, Integer> targetPartitions,
            String restoreId, int transactionTimeoutMs) {
        Properties producer = config.kafkaClientProperties();
        producer.remove("isolation.level");
        producer.remove("group.id");
        producer.setProperty("transaction.timeout.ms", Integer.toString(transactionTimeoutMs));
        // a restore is a bulk load: large batches that wait a little to fill (kafka.properties.* may say otherwise)
        producer.putIfAbsent("batch.size", Integer.toString(BATCH_BYTES));
        producer.putIfAbsent("linger.ms", "20");
        return KafkaSink.<ArchiveRecord>builder()
                .setBootstrapServers(config.get(KAFKA_BOOTSTRAP_SERVERS))
                .setKafkaProducerConfig(producer)
                .setRecordSerializer(new RestoredRecords(selection, targetPartitions))
                .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                .setTransactionalIdPrefix(restoreId)
                .build();
    }

    /**
     * Each checkpoint's Kafka transaction times out after the brokers' {@code transaction.max.timeout.ms} (at most
     * Kafka's default, 15 min; a producer asking for more is refused): a transaction spans one checkpoint interval
     * and the read of one archive file, so {@code restore.checkpoint-interval} must be at most half of it, else the restore
     * is refused before it writes. Brokers that do not say theirs (no Describe Configs on the cluster) are taken
     * to allow the producer's default, 1 min. The brokers are asked in turn until one answers: one that has just died is
     * still listed until the cluster fences it.
     */
    static int transactionTimeoutMs(ArchiverConfig config, PrintWriter out) throws Exception {
        int timeout;
        try (Admin admin = Admin.create(config.kafkaClientProperties())) {
            ConfigEntry max = brokerConfig(admin, "transaction.max.timeout.ms");
            timeout = max == null || max.value() == null ? TRANSACTION_TIMEOUT_MS : (int) Math.min(TRANSACTION_TIMEOUT_MS, Long.parseLong(max.value()));
        } catch (ExecutionException e) {
            timeout = UNKNOWN_BROKER_TIMEOUT_MS;
            out.printf("The brokers' transaction.max.timeout.ms is unknown (%s): each transaction times out after %d s%n",
                    e.getCause().getClass().getSimpleName(), timeout / 1000);
        }
        Duration interval = config.get(RESTORE_CHECKPOINT_INTERVAL);
        if (interval.toMillis() * 2 > timeout) {
            String key = RESTORE_CHECKPOINT_INTERVAL.key();
            throw new ConfigException(key + " (" + interval.toMillis() + " ms) is too long for this restore: each checkpoint's "
                    + "Kafka transaction must end well within the brokers' transaction.max.timeout.ms (" + timeout + " ms). Set "
                    + key + " to at most " + timeout / 2 + " ms, e.g. -D " + key + "=" + timeout / 4 + "ms.");
        }
        return timeout;
    }

    /** A broker setting as the first broker to answer says it (each asked for up to 10 s). */
    private static ConfigEntry brokerConfig(Admin admin, String name) throws ExecutionException, InterruptedException, TimeoutException {
        Collection<Node> brokers = AdminCalls.retried("which brokers the cluster has", Duration.ofSeconds(30),
                ms -> admin.describeCluster(new DescribeClusterOptions().timeoutMs(ms)).nodes());
        Exception unanswered = null;
        for (Node broker : brokers) {
            ConfigResource resource = new ConfigResource(ConfigResource.Type.BROKER, broker.idString());
            try {
                return admin.describeConfigs(List.of(resource), new DescribeConfigsOptions().timeoutMs(BROKER_ANSWER_MS)).all()
                        .get(BROKER_ANSWER_MS + 1_000, TimeUnit.MILLISECONDS).get(resource).get(name);
            } catch (TimeoutException e) {
                unanswered = e;
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof RetriableException)) {
                    throw e;
                }
                unanswered = e;
            }
        }
        throw new TimeoutException("None of the brokers " + brokers + " said its " + name + ": " + unanswered);
    }

    /**
     * The restore's id, the same for every restore of one archive into the same targets whatever its offset range
     * and time window: its Kafka transactional id prefix, so that a restore started again after a crash takes the
     * crashed one's transactional ids over.
     */
    static String transactionalIdPrefix(ArchiverConfig config, RestoreSelection selection) {
        String key = config.sinkPath() + "|" + selection.identity();
        return config.get(JOB_NAME) + "-restore-" + UUID.nameUUIDFromBytes(key.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Every target topic must exist with at least as many partitions as the archive has partition numbers
     * (any number when re-partitioned); with {@code create}, a missing one is created first ({@link #create}).
     * Returns each target's partition count.
     */
    private static Map<String, Integer> checkTargets(ArchiverConfig config, RestorePlan plan, RestoreSelection selection, boolean create,
            PrintWriter out) throws Exception {
        Map<String, Integer> needed = new HashMap<>();
        Map<String, String> archivedTopics = new HashMap<>();
        plan.partitions().keySet().forEach(tp -> {
            needed.merge(selection.target(tp.topic()), tp.partition() + 1, Math::max);
            archivedTopics.put(selection.target(tp.topic()), tp.topic());
        });
        if (needed.isEmpty()) {
            return Map.of();
        }
        try (Admin admin = Admin.create(config.kafkaClientProperties())) {
            TopicDescriptions targets = TopicDescriptions.of(admin, needed.keySet(), Duration.ofSeconds(30));
            List<String> missing = targets.missing();
            if (create && !missing.isEmpty()) {
                create(config, admin, missing, needed, archivedTopics, out);
                targets = visible(admin, needed.keySet());
                missing = targets.missing();
            }
            Map<String, TopicDescription> described = targets.found();
            if (!missing.isEmpty()) {
                throw new ConfigException("Cannot restore: target topic " + String.join(", ", missing) + " does not exist on '"
                        + config.get(KAFKA_BOOTSTRAP_SERVERS) + "'. Create it with at least as many partitions as the archived "
                        + "topic, let the restore create it with --create-topics, or restore into another with --rename.");
            }
            needed.forEach((topic, partitions) -> {
                int has = described.get(topic).partitions().size();
                if (has < partitions && !selection.repartition()) {
                    throw new ConfigException("Cannot restore into '" + topic + "': it has " + has + " partitions, the archive "
                            + "holds partition " + (partitions - 1) + ". Records go back to the partition number they were archived "
                            + "from: add partitions to the topic, restore into another with --rename, or write records by key "
                            + "with --repartition.");
                }
            });
            Map<String, Integer> partitions = new HashMap<>();
            described.forEach((topic, d) -> partitions.put(topic, d.partitions().size()));
            return partitions;
        }
    }

    /**
     * The targets' descriptions once every one of them shows in the cluster's metadata, or as they are after 30 s: a
     * creation is acknowledged before the brokers serve the topic, and a restore that looked at once found it missing.
     */
    private static TopicDescriptions visible(Admin admin, Set<String> topics) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        TopicDescriptions targets = TopicDescriptions.of(admin, topics, Duration.ofSeconds(30));
        while (!targets.missing().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(100);
            targets = TopicDescriptions.of(admin, topics, Duration.ofSeconds(30));
        }
        return targets;
    }

    /**
     * Creates the missing target topics with the archived topic's partition count and own settings as the
     * archiver captured them ({@link CaptureStore}); without a capture, with as many partitions as the archive
     * has partition numbers and the cluster's defaults. The replication factor is the cluster's default.
     */
    private static void create(ArchiverConfig config, Admin admin, List<String> missing, Map<String, Integer> needed,
            Map<String, String> archivedTopics, PrintWriter out) throws Exception {
        CaptureStore captured = new CaptureStore(ArchiveRoot.of(config));
        List<NewTopic> topics = new ArrayList<>();
        for (String target : missing) {
            Optional<TopicSettings> source = captured.topic(archivedTopics.get(target));
            int partitions = Math.max(needed.get(target), source.map(TopicSettings::partitions).orElse(0));
            Map<String, String> configs = source.map(TopicSettings::configs).orElse(Map.of());
            topics.add(new NewTopic(target, Optional.of(partitions), Optional.empty()).configs(configs));
            out.printf("Creating topic %s: %d partitions%s%n", target, partitions, source.isEmpty()
                    ? " (no settings of '" + archivedTopics.get(target) + "' were captured: the cluster's defaults)"
                    : configs.isEmpty() ? ", the cluster's default settings (as '" + archivedTopics.get(target) + "' had)"
                    : ", settings of '" + archivedTopics.get(target) + "': " + new TreeMap<>(configs));
        }
        out.flush();
        admin.createTopics(topics).all().get(30, TimeUnit.SECONDS);
    }
}
