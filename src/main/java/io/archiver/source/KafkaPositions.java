package io.archiver.source;

import io.archiver.config.ConfigException;

import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * Parses the start and stop positions of the configuration into the connector's {@link
 * OffsetsInitializer}s. Every parse error names the configuration key and the accepted forms.
 */
public final class KafkaPositions {

    static final String START_FORMS = "earliest | latest | committed | timestamp:<epoch-ms>";
    static final String STOP_FORMS =
            "latest | timestamp:<epoch-ms> | offsets:<topic>:<partition>=<offset>[,...]";
    private static final String TIMESTAMP = "timestamp:";
    private static final String OFFSETS = "offsets:";

    private KafkaPositions() {}

    /**
     * The initial position of partitions without checkpointed state. {@code latest} is where a consumer of
     * {@code isolation} would start: the last stable offset for read_committed ({@code client}: bootstrap
     * servers and client properties, to ask for it).
     */
    public static OffsetsInitializer start(
            String key, String spec, String fallbackKey, String fallback, IsolationLevel isolation, Properties client) {
        String s = spec.trim().toLowerCase(Locale.ROOT);
        switch (s) {
            case "earliest":
                return OffsetsInitializer.earliest();
            case "latest":
                return latest(isolation, client);
            case "committed":
                return OffsetsInitializer.committedOffsets(resetStrategy(fallbackKey, fallback));
            default:
                if (s.startsWith(TIMESTAMP)) {
                    return OffsetsInitializer.timestamp(timestamp(key, spec));
                }
                throw new ConfigException(
                        "Invalid value '" + spec + "' for '" + key + "': accepted values are " + START_FORMS + ".");
        }
    }

    /**
     * The stop position of batch mode (exclusive). {@code latest} is the last stable offset for read_committed:
     * never inside a transaction still open, which would hold the run until the transaction ends.
     */
    public static OffsetsInitializer stop(String key, String spec, IsolationLevel isolation, Properties client) {
        String s = spec.trim();
        if (s.equalsIgnoreCase("latest")) {
            return latest(isolation, client);
        }
        if (s.toLowerCase(Locale.ROOT).startsWith(TIMESTAMP)) {
            return OffsetsInitializer.timestamp(timestamp(key, spec));
        }
        if (s.toLowerCase(Locale.ROOT).startsWith(OFFSETS)) {
            return OffsetsInitializer.offsets(offsets(key, s.substring(OFFSETS.length())), OffsetResetStrategy.LATEST);
        }
        throw new ConfigException(
                "Invalid value '" + spec + "' for '" + key + "': accepted values are " + STOP_FORMS + ".");
    }

    private static OffsetsInitializer latest(IsolationLevel isolation, Properties client) {
        return isolation == IsolationLevel.READ_COMMITTED ? new LastStableOffsetsInitializer(client) : OffsetsInitializer.latest();
    }

    private static OffsetResetStrategy resetStrategy(String key, String value) {
        switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "earliest":
                return OffsetResetStrategy.EARLIEST;
            case "latest":
                return OffsetResetStrategy.LATEST;
            default:
                throw new ConfigException(
                        "Invalid value '" + value + "' for '" + key + "': accepted values are earliest | latest.");
        }
    }

    private static long timestamp(String key, String spec) {
        String digits = spec.trim().substring(TIMESTAMP.length()).trim();
        try {
            long ts = Long.parseLong(digits);
            if (ts < 0) {
                throw new NumberFormatException("negative");
            }
            return ts;
        } catch (NumberFormatException e) {
            throw new ConfigException(
                    "Invalid value '" + spec + "' for '" + key
                            + "': the timestamp must be epoch milliseconds, e.g. timestamp:1767225600000.");
        }
    }

    private static Map<TopicPartition, Long> offsets(String key, String list) {
        Map<TopicPartition, Long> offsets = new HashMap<>();
        for (String entry : list.split(",")) {
            String e = entry.trim();
            int colon = e.lastIndexOf(':');
            int eq = e.indexOf('=');
            try {
                if (colon <= 0 || eq < colon) {
                    throw new NumberFormatException(e);
                }
                TopicPartition tp =
                        new TopicPartition(e.substring(0, colon), Integer.parseInt(e.substring(colon + 1, eq)));
                long offset = Long.parseLong(e.substring(eq + 1));
                if (tp.partition() < 0 || offset < 0) {
                    throw new NumberFormatException(e);
                }
                offsets.put(tp, offset);
            } catch (NumberFormatException ex) {
                throw new ConfigException(
                        "Invalid entry '" + e + "' in '" + key
                                + "': write offsets:<topic>:<partition>=<offset>[,...], e.g. offsets:orders:0=1500,orders:1=1200.");
            }
        }
        return offsets;
    }
}
