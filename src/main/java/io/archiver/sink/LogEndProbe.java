package io.archiver.sink;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Serializable;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * Asks Kafka for the log end offsets of the partitions a committer archives, so that the archive lag
 * (records behind the log end) can be exported. One ListOffsets request per commit; a failure only leaves
 * the lag metric at its previous value (it is monitoring, never on the commit path's correctness).
 */
final class LogEndProbe implements Serializable, AutoCloseable {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(LogEndProbe.class);
    private static final long TIMEOUT_MS = 5_000;

    private final Properties client;
    private transient Admin admin;

    /** {@code client}: bootstrap servers and the source's client properties (security settings included). */
    LogEndProbe(Properties client) {
        this.client = client;
    }

    Map<TopicPartition, Long> logEnds(Collection<TopicPartition> partitions) {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        partitions.forEach(tp -> latest.put(tp, OffsetSpec.latest()));
        Map<TopicPartition, Long> ends = new HashMap<>();
        try {
            if (admin == null) {
                admin = Admin.create(client);
            }
            admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                    .all().get(TIMEOUT_MS, TimeUnit.MILLISECONDS)
                    .forEach((tp, info) -> ends.put(tp, info.offset()));
        } catch (Exception e) {
            LOG.warn("Cannot read Kafka's log end offsets for the archive lag metric: {}", e.toString());
        }
        return ends;
    }

    @Override
    public void close() {
        if (admin != null) {
            admin.close();
        }
    }
}
