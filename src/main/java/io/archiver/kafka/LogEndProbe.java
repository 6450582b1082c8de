package io.archiver.kafka;

import io.archiver.fs.IoThreads;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

/**
 * Measures the archive lag of the partitions a committer archives: from the first committed record not
 * archived yet to the last stable offset, where a read_committed reader stops. A commit only starts the
 * ListOffsets request, it never waits for it: the lag is monitoring, and a slow broker must not stall the task
 * thread that commits. At most one request is in flight; a refresh asked for meanwhile runs when it ends, so
 * the offsets after the last commit are always read. A failure only leaves the lag at its previous value.
 *
 * <p>Offsets after the last archived record need not hold records: a commit marker follows every
 * transaction, aborted records are skipped. Where the distance to the last stable offset is short (at most
 * {@value #TAIL_CHECK} offsets) and the partition is at rest (seen for the first time, or its archived end and
 * last stable offset as at the previous measurement), a read_committed scan from the archived end finds the
 * first record there; none means lag 0, not 1 forever behind the last marker. The result is kept until the
 * partition moves. A partition that moved since the previous measurement (records arriving, being archived)
 * is reported as its distance, as are longer distances. At most {@value #TAIL_CHECKS_PER_MEASUREMENT}
 * partitions are scanned per measurement, the others at the next ones: with thousands of partitions a
 * measurement stays a few small fetches.
 *
 * <p>A partition Kafka cannot serve (no leader: every replica down, or none in sync without unclean election) is named
 * once when it becomes unavailable and once when it is served again: nothing of it is archived meanwhile, the job
 * waits for it while the others go on, and its lag keeps its last value.
 */
public final class LogEndProbe implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LogEndProbe.class);
    private static final int TIMEOUT_MS = 5_000;
    static final long TAIL_CHECK = 10_000;
    /** Only the first record after the archive is wanted: small fetches per partition at every commit. */
    private static final int TAIL_FETCH_BYTES = 64 * 1024;
    static final int TAIL_CHECKS_PER_MEASUREMENT = 256;

    private final Properties client;
    private Admin admin;
    private LogScanner tails;
    private ExecutorService tailChecks;
    private Map<TopicPartition, Long> archivedEnds;
    /** Per partition, its previous measurement (used only by the thread that measures). */
    private final Map<TopicPartition, Measured> previous = new HashMap<>();
    private Consumer<Map<TopicPartition, Long>> onLags;
    private boolean inFlight;
    private boolean again;
    private boolean closed;
    /** Partitions whose offsets Kafka did not give, since when (used only by the admin client's callback thread). */
    private final Map<TopicPartition, Long> unavailableSince = new HashMap<>();

    /** {@code client}: bootstrap servers and the source's client properties (security settings included). */
    public LogEndProbe(Properties client) {
        this.client = client;
    }

    /**
     * Measures in the background the lag of the partitions of {@code archivedEnds} (each the offset after its
     * last archived record) and hands it to {@code onLags}.
     */
    public synchronized void refresh(Map<TopicPartition, Long> archivedEnds, Consumer<Map<TopicPartition, Long>> onLags) {
        this.archivedEnds = new HashMap<>(archivedEnds);
        this.onLags = onLags;
        if (inFlight) {
            again = true;
        } else if (!closed) {
            inFlight = true;
            request();
        }
    }

    /** Starts one request; called with the lock held. */
    private void request() {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        archivedEnds.keySet().forEach(tp -> latest.put(tp, OffsetSpec.latest()));
        Map<TopicPartition, Long> archived = archivedEnds;
        Consumer<Map<TopicPartition, Long>> target = onLags;
        try {
            if (admin == null) {
                admin = Admin.create(client);
                tailChecks = Executors.newSingleThreadExecutor(IoThreads.daemon("archive-lag-tails"));
            }
            ListOffsetsOptions options = new ListOffsetsOptions(IsolationLevel.READ_COMMITTED).timeoutMs(TIMEOUT_MS);
            ListOffsetsResult result = admin.listOffsets(latest, options);
            Map<TopicPartition, Long> stable = new ConcurrentHashMap<>();
            Map<TopicPartition, Throwable> failed = new ConcurrentHashMap<>();
            CompletableFuture<Void> all = new CompletableFuture<>();
            AtomicInteger pending = new AtomicInteger(latest.size());
            if (latest.isEmpty()) {
                all.complete(null);
            }
            // per partition: one Kafka does not serve fails alone, the others are measured
            latest.keySet().forEach(tp -> result.partitionResult(tp).whenComplete((info, error) -> {
                if (error == null) {
                    stable.put(tp, info.offset());
                } else {
                    failed.put(tp, error);
                }
                if (pending.decrementAndGet() == 0) {
                    all.complete(null);
                }
            }));
            all.whenComplete((ignored, never) -> {
                if (isClosed()) {
                    finished();
                    return;
                }
                noteAvailability(stable.keySet(), failed);
                if (stable.isEmpty()) {
                    finished();
                    return;
                }
                // off the admin client's network thread: the tail scan polls a consumer
                try {
                    tailChecks.execute(() -> {
                        try {
                            target.accept(lags(archived, stable));
                        } catch (RuntimeException e) {
                            LOG.warn("Cannot measure the archive lag: {}", e.toString());
                        } finally {
                            finished();
                        }
                    });
                } catch (RejectedExecutionException closing) {
                    finished();
                }
            });
        } catch (RuntimeException e) {
            LOG.warn("Cannot read Kafka's last stable offsets for the archive lag metric: {}", e.toString());
            inFlight = false;
        }
    }

    /** Names the partitions Kafka stopped serving (once per outage) and those it serves again. */
    private void noteAvailability(Set<TopicPartition> served, Map<TopicPartition, Throwable> failed) {
        long now = System.currentTimeMillis();
        failed.forEach((tp, error) -> {
            if (unavailableSince.putIfAbsent(tp, now) == null) {
                LOG.warn("Kafka does not serve {} ({}): no leader, none that answers, or not to this client. Nothing of it is archived until Kafka serves it"
                        + " again; the job waits for it and archives the other partitions meanwhile.", tp, error.toString());
            }
        });
        for (TopicPartition tp : served) {
            Long since = unavailableSince.remove(tp);
            if (since != null) {
                LOG.info("Kafka serves {} again, after {} s: archiving it goes on where it stopped.", tp, (now - since) / 1000);
            }
        }
    }

    /** One partition's measurement: its archived end, last stable offset, lag, and whether its tail was read. */
    private record Measured(long end, long stable, long lag, boolean tailRead) {
        boolean at(long end, long stable) {
            return this.end == end && this.stable == stable;
        }
    }

    /** Per partition: 0 when archived up to the last stable offset, else from the first unarchived record to it. */
    private Map<TopicPartition, Long> lags(Map<TopicPartition, Long> archived, Map<TopicPartition, Long> stable) {
        Map<TopicPartition, Long> lags = new HashMap<>();
        Map<TopicPartition, LogScanner.Range> tailsToRead = new HashMap<>();
        previous.keySet().retainAll(stable.keySet());
        stable.forEach((tp, lso) -> {
            long end = archived.get(tp);
            long distance = Math.max(0, lso - end);
            Measured before = previous.get(tp);
            if (before != null && before.tailRead() && before.at(end, lso)) {
                lags.put(tp, before.lag());
                return;
            }
            lags.put(tp, distance);
            previous.put(tp, new Measured(end, lso, distance, false));
            boolean atRest = before == null || before.at(end, lso);
            if (distance > 0 && distance <= TAIL_CHECK && atRest && tailsToRead.size() < TAIL_CHECKS_PER_MEASUREMENT) {
                tailsToRead.put(tp, new LogScanner.Range(end, end, lso));
            }
        });
        if (!tailsToRead.isEmpty()) {
            if (tails == null) {
                tails = new LogScanner(client, IsolationLevel.READ_COMMITTED, TAIL_FETCH_BYTES, Duration.ofMillis(TIMEOUT_MS));
            }
            tails.scan(tailsToRead, new LogScanner.Visitor() {
                @Override
                public void record(TopicPartition tp, long offset) {}

                @Override
                public void done(TopicPartition tp, long firstBeyond) {
                    long lag = firstBeyond < 0 ? 0 : stable.get(tp) - firstBeyond;
                    lags.put(tp, lag);
                    previous.put(tp, new Measured(archived.get(tp), stable.get(tp), lag, true));
                }
            }, line -> {});
        }
        return lags;
    }

    private synchronized boolean isClosed() {
        return closed;
    }

    private synchronized void finished() {
        if (again && !closed) {
            again = false;
            request();
        } else {
            inFlight = false;
        }
    }

    @Override
    public void close() {
        Admin toClose;
        synchronized (this) {
            closed = true;
            toClose = admin;
        }
        if (toClose != null) {
            // a request in flight is monitoring only: a closing task does not wait for it
            toClose.close(Duration.ZERO);
            // the tail scanner's consumer belongs to the thread that uses it
            tailChecks.execute(() -> {
                if (tails != null) {
                    tails.close();
                }
            });
            tailChecks.shutdown();
        }
    }
}
