package io.archiver.restore.ledger;

import io.archiver.archive.ArchiveRoot;
import io.archiver.config.ArchiverConfig;
import io.archiver.config.ConfigException;
import io.archiver.kafka.AdminCalls;
import io.archiver.kafka.LastStableOffsets;
import io.archiver.record.ArchiveRecord;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeTransactionsOptions;
import org.apache.kafka.clients.admin.FenceProducersOptions;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static io.archiver.config.SourceOptions.KAFKA_BOOTSTRAP_SERVERS;
import static io.archiver.config.RestoreOptions.RESTORE_LEDGER_TOPIC;

/**
 * What restores wrote, kept where nothing but the restore changes it: a compacted topic of the cluster restored
 * into ({@code restore.ledger-topic}), one entry per archived partition and target ({@link #key}), its value the
 * partition's {@link RestoreHistory}. The restore job writes an entry after each read unit of a partition in the
 * same Kafka transaction as the unit's records ({@link io.archiver.restore.source.RestoreSourceReader}), so an entry is committed exactly when
 * the records it counts are: whatever the target topic's own settings do to its records afterwards (compaction,
 * retention, deleted segments), and wherever a restore was cancelled or crashed, the latest committed entry says
 * which records were written. Compaction of the ledger keeps the latest entry of every key.
 *
 * <p>Before a restore reads its entries, every transaction still open on its target partitions is aborted
 * (a start of it that crashed left it open, and its entries are undecided until it ends) and the ledger is read
 * up to where every earlier transaction is decided.
 */
public final class RestoreLedger {

    /** The offset an {@link ArchiveRecord} carries when it is a ledger entry on its way to the sink. */
    static final long ENTRY_OFFSET = -1;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final Duration SETTLE = Duration.ofSeconds(60);
    private static final Duration POLL = Duration.ofMillis(200);

    private RestoreLedger() {}

    /**
     * The entry of {@code archived} (a {@code topic-partition}) restored into {@code target}: a partition of the same
     * number, or, re-partitioned by key, a whole topic ({@code partition} null).
     */
    static String key(String sinkPath, String archived, String targetTopic, Integer targetPartition) {
        return sinkPath + "|" + archived + "|" + (targetPartition == null ? targetTopic + " by key" : targetTopic + "-" + targetPartition);
    }

    /** A ledger entry as the record the restore's sink writes to {@code ledgerTopic}. */
    public static ArchiveRecord entry(String ledgerTopic, String key, RestoreHistory history) {
        return new ArchiveRecord(ledgerTopic, -1, ENTRY_OFFSET, System.currentTimeMillis(), "CreateTime",
                key.getBytes(StandardCharsets.UTF_8), encode(history), new String[0], new byte[0][]);
    }

    static boolean isEntry(ArchiveRecord r) {
        return r.getOffset() == ENTRY_OFFSET;
    }

    /**
     * At a restore's start: creates the ledger topic when missing, aborts the transactions still open on {@code
     * targets} and waits until the ledger's earlier transactions are decided ({@link #settle}); then the latest
     * entry of each key of this archive.
     */
    static Map<String, RestoreHistory> openForWriting(ArchiverConfig config, Admin admin, Collection<TopicPartition> targets)
            throws Exception {
        String topic = config.get(RESTORE_LEDGER_TOPIC);
        LedgerIdentity identity = LedgerIdentity.of(ArchiveRoot.of(config), admin, topic);
        identity.check(LedgerIdentity.topicId(admin, topic));
        ensureTopic(config, admin, topic);
        identity.record(describedTopicId(admin, topic));
        abortOpenTransactions(admin, targets);
        return read(config, admin, topic);
    }

    /** For verification and consumer groups: the latest entry of each key of this archive, once the ledger is settled. */
    static Map<String, RestoreHistory> openForReading(ArchiverConfig config, Admin admin) throws Exception {
        String topic = config.get(RESTORE_LEDGER_TOPIC);
        Optional<String> id = LedgerIdentity.topicId(admin, topic);
        LedgerIdentity.of(ArchiveRoot.of(config), admin, topic).check(id);
        return id.isEmpty() ? Map.of() : read(config, admin, topic);
    }

    /**
     * The ledger topic's id once a broker describes it: a topic just created is known to the controller before every
     * broker's metadata has it, so the first description may not find it yet.
     */
    private static String describedTopicId(Admin admin, String topic) throws Exception {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (true) {
            Optional<String> id = LedgerIdentity.topicId(admin, topic);
            if (id.isPresent()) {
                return id.get();
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("The restore ledger topic '" + topic + "' exists but no broker described it within "
                        + TIMEOUT.toSeconds() + " s; check the cluster's health and start again.");
            }
            TimeUnit.MILLISECONDS.sleep(POLL.toMillis());
        }
    }

    private static void ensureTopic(ArchiverConfig config, Admin admin, String topic) throws Exception {
        if (admin.listTopics().names().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS).contains(topic)) {
            return;
        }
        try {
            admin.createTopics(List.of(new NewTopic(topic, Optional.of(1), Optional.empty()).configs(Map.of("cleanup.policy", "compact"))))
                    .all().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TopicExistsException) {
                return;
            }
            throw new ConfigException("Cannot create the restore ledger topic '" + topic + "' on '" + config.get(KAFKA_BOOTSTRAP_SERVERS)
                    + "': " + e.getCause().getMessage() + ". Create it (cleanup.policy=compact, one partition) or name another with "
                    + RESTORE_LEDGER_TOPIC.key() + ".");
        }
    }

    /**
     * Aborts every open transaction that writes to {@code targets}: one a crashed start of a restore left (its
     * entries are undecided while it is open), or one of a writer the restore must not share its targets with.
     * Transactions between commit and markers are left to finish. A broker that died just before is asked no longer
     * once the cluster moved its transactions to the others ({@link AdminCalls}).
     */
    private static void abortOpenTransactions(Admin admin, Collection<TopicPartition> targets) throws Exception {
        Set<TopicPartition> ours = new HashSet<>(targets);
        List<String> open = AdminCalls.retried("which transactions are open", TIMEOUT, ms -> admin.listTransactions(
                new ListTransactionsOptions().filterStates(List.of(TransactionState.ONGOING)).timeoutMs(ms)).all())
                .stream().map(TransactionListing::transactionalId).toList();
        if (open.isEmpty()) {
            return;
        }
        List<String> fence = new ArrayList<>();
        for (Map.Entry<String, TransactionDescription> e : AdminCalls.retried("the open transactions' partitions", TIMEOUT,
                ms -> admin.describeTransactions(open, new DescribeTransactionsOptions().timeoutMs(ms)).all()).entrySet()) {
            if (e.getValue().state() == TransactionState.ONGOING && e.getValue().topicPartitions().stream().anyMatch(ours::contains)) {
                fence.add(e.getKey());
            }
        }
        if (!fence.isEmpty()) {
            AdminCalls.retried("fencing the producers of " + fence, TIMEOUT, ms -> admin.fenceProducers(fence, new FenceProducersOptions().timeoutMs(ms)).all());
        }
    }

    /**
     * Every entry of this archive, latest per key: the ledger read with read_committed from its start up to its end
     * as it is now, once every transaction below that end is decided (60 s at most: transactions of other restores
     * end with their next checkpoint).
     */
    private static Map<String, RestoreHistory> read(ArchiverConfig config, Admin admin, String topic) throws Exception {
        TopicDescription description = admin.describeTopics(List.of(topic)).allTopicNames().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                .get(topic);
        List<TopicPartition> partitions = description.partitions().stream().map(p -> new TopicPartition(topic, p.partition())).toList();
        Map<TopicPartition, Long> ends = settle(admin, partitions);
        String prefix = config.sinkPath() + "|";
        Map<String, RestoreHistory> entries = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = readCommittedConsumer(config)) {
            List<TopicPartition> active = new ArrayList<>();
            ends.forEach((tp, end) -> {
                if (end > 0) {
                    active.add(tp);
                }
            });
            consumer.assign(active);
            consumer.seekToBeginning(active);
            long lastMove = System.nanoTime();
            while (!active.isEmpty()) {
                int polled = 0;
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
                    polled++;
                    String key = r.key() == null ? "" : new String(r.key(), StandardCharsets.UTF_8);
                    if (r.offset() < ends.get(new TopicPartition(r.topic(), r.partition())) && key.startsWith(prefix)) {
                        if (r.value() == null) {
                            entries.remove(key);
                        } else {
                            entries.put(key, decode(r.value()));
                        }
                    }
                }
                active.removeIf(tp -> consumer.position(tp) >= ends.get(tp));
                if (polled > 0) {
                    lastMove = System.nanoTime();
                } else if (System.nanoTime() - lastMove > TIMEOUT.toNanos()) {
                    throw new IllegalStateException("Reading the restore ledger " + topic + " made no progress for " + TIMEOUT.toSeconds()
                            + " s: " + active);
                }
            }
        }
        return entries;
    }

    /**
     * Waits until every transaction below the partitions' current ends is decided (their last stable offsets reach
     * those ends); returns the ends.
     */
    public static Map<TopicPartition, Long> settle(Admin admin, Collection<TopicPartition> partitions) throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        partitions.forEach(tp -> latest.put(tp, OffsetSpec.latest()));
        Map<TopicPartition, Long> ends = new HashMap<>();
        admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED)).all().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                .forEach((tp, info) -> ends.put(tp, info.offset()));
        long deadline = System.nanoTime() + SETTLE.toNanos();
        while (true) {
            Map<TopicPartition, Long> stable = LastStableOffsets.of(admin, partitions, TIMEOUT);
            List<TopicPartition> undecided = new ArrayList<>();
            stable.forEach((tp, lso) -> {
                if (lso < ends.get(tp)) {
                    undecided.add(tp);
                }
            });
            if (undecided.isEmpty()) {
                return ends;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Transactions on " + undecided + " stayed open for " + SETTLE.toSeconds() + " s: what they "
                        + "hold is undecided. Find them with kafka-transactions.sh --bootstrap-server ... list, wait for them to end "
                        + "(or abort them with kafka-transactions.sh abort), then start again.");
            }
            TimeUnit.MILLISECONDS.sleep(POLL.toMillis());
        }
    }

    /** A read_committed consumer of byte arrays without a group, for reading the ledger and the targets. */
    public static KafkaConsumer<byte[], byte[]> readCommittedConsumer(ArchiverConfig config) {
        Properties props = new Properties();
        props.putAll(config.kafkaClientProperties());
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, IsolationLevel.READ_COMMITTED.toString());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    static byte[] encode(RestoreHistory history) {
        ObjectNode n = JSON.createObjectNode();
        n.put("format", 1);
        n.put("targetTopicId", history.targetTopicId());
        ObjectNode starts = n.putObject("starts");
        history.starts().forEach(starts::put);
        ArrayNode runs = n.putArray("runs");
        for (RestoreHistory.Run run : history.runs()) {
            ObjectNode r = runs.addObject();
            r.put("from", run.from());
            r.put("to", run.to());
            if (run.since() != null) {
                r.put("since", run.since());
            }
            if (run.until() != null) {
                r.put("until", run.until());
            }
            r.put("through", run.through());
            r.put("written", run.written());
            r.put("lastStart", run.lastStart());
        }
        try {
            return JSON.writeValueAsBytes(n);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static RestoreHistory decode(byte[] value) throws IOException {
        JsonNode n = JSON.readTree(value);
        if (n.path("format").asInt() != 1) {
            throw new IOException("A restore ledger entry of format " + n.path("format") + ": written by a newer version of the archiver");
        }
        Map<String, Long> starts = new HashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = n.path("starts").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            starts.put(e.getKey(), e.getValue().asLong());
        }
        List<RestoreHistory.Run> runs = new ArrayList<>();
        for (JsonNode r : n.path("runs")) {
            runs.add(new RestoreHistory.Run(r.path("from").asLong(), r.path("to").asLong(),
                    r.has("since") ? r.path("since").asLong() : null, r.has("until") ? r.path("until").asLong() : null,
                    r.path("through").asLong(), r.path("written").asLong(),
                    r.path("lastStart").asLong()));
        }
        return new RestoreHistory(n.path("targetTopicId").asText(), starts, runs);
    }
}
