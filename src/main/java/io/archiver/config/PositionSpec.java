package io.archiver.config;

import org.apache.kafka.common.TopicPartition;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A start or stop position as configured ({@code kafka.start}, {@code kafka.stop}), parsed and checked. Every
 * parse error names the configuration key and the accepted forms. The source turns it into the connector's
 * offsets initializer.
 *
 * @param kind which position
 * @param timestamp epoch milliseconds, for {@link Kind#TIMESTAMP}
 * @param offsets exclusive stop offsets per partition, for {@link Kind#OFFSETS}
 * @param fallback where partitions without a committed offset start, for {@link Kind#COMMITTED}: {@link
 *     Kind#EARLIEST} or {@link Kind#LATEST}
 */
public record PositionSpec(Kind kind, long timestamp, Map<TopicPartition, Long> offsets, Kind fallback) {

    /** The forms of a position. */
    public enum Kind { EARLIEST, LATEST, COMMITTED, TIMESTAMP, OFFSETS }

    static final String START_FORMS = "earliest | latest | committed | timestamp:<epoch-ms>";
    static final String STOP_FORMS = "latest | timestamp:<epoch-ms> | offsets:<topic>:<partition>=<offset>[,...]";
    private static final String TIMESTAMP = "timestamp:";
    private static final String OFFSETS = "offsets:";

    public PositionSpec {
        offsets = Map.copyOf(offsets);
    }

    private static PositionSpec of(Kind kind) {
        return new PositionSpec(kind, -1, Map.of(), Kind.EARLIEST);
    }

    /** The initial position of partitions without checkpointed state. */
    static PositionSpec start(String key, String spec, String fallbackKey, String fallback) {
        String s = spec.trim().toLowerCase(Locale.ROOT);
        switch (s) {
            case "earliest":
                return of(Kind.EARLIEST);
            case "latest":
                return of(Kind.LATEST);
            case "committed":
                return new PositionSpec(Kind.COMMITTED, -1, Map.of(), resetTo(fallbackKey, fallback));
            default:
                if (s.startsWith(TIMESTAMP)) {
                    return new PositionSpec(Kind.TIMESTAMP, timestamp(key, spec), Map.of(), Kind.EARLIEST);
                }
                throw new ConfigException(
                        "Invalid value '" + spec + "' for '" + key + "': accepted values are " + START_FORMS + ".");
        }
    }

    /** The stop position of batch mode (exclusive). */
    static PositionSpec stop(String key, String spec) {
        String s = spec.trim();
        String lower = s.toLowerCase(Locale.ROOT);
        if (lower.equals("latest")) {
            return of(Kind.LATEST);
        }
        if (lower.startsWith(TIMESTAMP)) {
            return new PositionSpec(Kind.TIMESTAMP, timestamp(key, spec), Map.of(), Kind.EARLIEST);
        }
        if (lower.startsWith(OFFSETS)) {
            return new PositionSpec(Kind.OFFSETS, -1, offsets(key, s.substring(OFFSETS.length())), Kind.EARLIEST);
        }
        throw new ConfigException(
                "Invalid value '" + spec + "' for '" + key + "': accepted values are " + STOP_FORMS + ".");
    }

    private static Kind resetTo(String key, String value) {
        switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "earliest":
                return Kind.EARLIEST;
            case "latest":
                return Kind.LATEST;
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
