package io.archiver.sink;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;

/**
 * Asks Kafka for the log end offsets of the partitions a committer archives, so that the archive lag
 * (records behind the log end) can be exported. A commit only starts the ListOffsets request, it never waits
 * for it: the lag is monitoring, and a slow broker must not stall the task thread that commits. At most one
 * request is in flight; a refresh asked for meanwhile runs when it ends, so the log ends after the last commit
 * are always read. A failure only leaves the lag at its previous value.
 */
final class LogEndProbe implements Serializable, AutoCloseable {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(LogEndProbe.class);
    private static final int TIMEOUT_MS = 5_000;

    private final Properties client;
    private transient Admin admin;
    private transient List<TopicPartition> partitions;
    private transient Consumer<Map<TopicPartition, Long>> onEnds;
    private transient boolean inFlight;
    private transient boolean again;
    private transient boolean closed;

    /** {@code client}: bootstrap servers and the source's client properties (security settings included). */
    LogEndProbe(Properties client) {
        this.client = client;
    }

    /** Reads the log ends of {@code partitions} in the background and hands them to {@code onEnds}. */
    synchronized void refresh(Collection<TopicPartition> partitions, Consumer<Map<TopicPartition, Long>> onEnds) {
        this.partitions = new ArrayList<>(partitions);
        this.onEnds = onEnds;
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
        partitions.forEach(tp -> latest.put(tp, OffsetSpec.latest()));
        Consumer<Map<TopicPartition, Long>> target = onEnds;
        try {
            if (admin == null) {
                admin = Admin.create(client);
            }
            ListOffsetsOptions options = new ListOffsetsOptions(IsolationLevel.READ_COMMITTED).timeoutMs(TIMEOUT_MS);
            admin.listOffsets(latest, options).all().whenComplete((infos, error) -> {
                try {
                    if (error != null) {
                        LOG.warn("Cannot read Kafka's log end offsets for the archive lag metric: {}", error.toString());
                    } else {
                        Map<TopicPartition, Long> ends = new HashMap<>();
                        infos.forEach((tp, info) -> ends.put(tp, info.offset()));
                        target.accept(ends);
                    }
                } finally {
                    finished();
                }
            });
        } catch (RuntimeException e) {
            LOG.warn("Cannot read Kafka's log end offsets for the archive lag metric: {}", e.toString());
            inFlight = false;
        }
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
            toClose.close(Duration.ofMillis(TIMEOUT_MS));
        }
    }
}
