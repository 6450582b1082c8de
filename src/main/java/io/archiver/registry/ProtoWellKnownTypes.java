package io.archiver.registry;

import com.google.protobuf.Descriptors;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;

import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Google's well-known Protobuf types that typed columns hold as the values they stand for, as the proto3 JSON
 * mapping and Kafka Connect's Protobuf converter do: a {@code google.protobuf.Timestamp} is an instant (a Parquet
 * timestamp, an RFC 3339 string in JSON), a wrapper ({@code google.protobuf.Int64Value}, {@code StringValue}, …) its
 * one value, null when the message is absent. A Timestamp is valid from 0001-01-01 to 9999-12-31 with nanos below
 * a second (protobuf's own rule); a {@link TimestampCheck} finds one that is not, so it is bad input before a
 * column has to hold it.
 */
public final class ProtoWellKnownTypes {

    private static final String TIMESTAMP = "google.protobuf.Timestamp";
    private static final Set<String> WRAPPERS = Set.of("google.protobuf.DoubleValue", "google.protobuf.FloatValue",
            "google.protobuf.Int64Value", "google.protobuf.UInt64Value", "google.protobuf.Int32Value", "google.protobuf.UInt32Value",
            "google.protobuf.BoolValue", "google.protobuf.StringValue", "google.protobuf.BytesValue");
    private static final long MIN_SECONDS = -62_135_596_800L;
    private static final long MAX_SECONDS = 253_402_300_799L;

    private ProtoWellKnownTypes() {}

    public static boolean isTimestamp(Descriptors.Descriptor message) {
        return message.getFullName().equals(TIMESTAMP);
    }

    /** The one field a wrapper message wraps ({@code value}), or null when {@code message} is not a wrapper. */
    public static FieldDescriptor wrapped(Descriptors.Descriptor message) {
        return WRAPPERS.contains(message.getFullName()) ? message.findFieldByNumber(1) : null;
    }

    /** A valid Timestamp message in microseconds since the epoch (sub-microsecond digits dropped). */
    public static long epochMicros(Message timestamp) {
        return seconds(timestamp) * 1_000_000L + nanos(timestamp) / 1_000;
    }

    /** A valid Timestamp message as RFC 3339 in UTC, e.g. {@code 2026-12-03T10:15:30.120Z}. */
    public static String rfc3339(Message timestamp) {
        return Instant.ofEpochSecond(seconds(timestamp), nanos(timestamp)).toString();
    }

    /** Finds Timestamps outside the valid range in messages. Not thread-safe: one per task. */
    public static final class TimestampCheck {

        /** Whether a message of each type can hold a Timestamp, itself or in a field at any depth (map values included). */
        private final Map<Descriptors.Descriptor, Boolean> holds = new HashMap<>();

        /**
         * The first field of {@code message} (its path, e.g. {@code order.placed}) holding a Timestamp outside the
         * valid range, or null when there is none.
         */
        public String invalidField(Message message) {
            return holdsTimestamp(message.getDescriptorForType()) ? invalidField(message, "") : null;
        }

        private String invalidField(Message message, String path) {
            for (FieldDescriptor f : message.getDescriptorForType().getFields()) {
                if (f.getJavaType() != FieldDescriptor.JavaType.MESSAGE || !holdsTimestamp(f.getMessageType())) {
                    continue;
                }
                String at = path + (path.isEmpty() ? "" : ".") + f.getName();
                List<?> values = f.isRepeated() ? (List<?>) message.getField(f) : message.hasField(f) ? List.of(message.getField(f)) : List.of();
                for (Object value : values) {
                    Message m = (Message) value;
                    String invalid = isTimestamp(m.getDescriptorForType()) ? (valid(m) ? null : at) : invalidField(m, at);
                    if (invalid != null) {
                        return invalid;
                    }
                }
            }
            return null;
        }

        private boolean holdsTimestamp(Descriptors.Descriptor message) {
            Boolean known = holds.get(message);
            if (known == null) {
                known = holdsTimestamp(message, new HashSet<>());
                holds.put(message, known);
            }
            return known;
        }

        private static boolean holdsTimestamp(Descriptors.Descriptor message, Set<Descriptors.Descriptor> seen) {
            if (isTimestamp(message)) {
                return true;
            }
            if (!seen.add(message)) {
                return false;
            }
            for (FieldDescriptor f : message.getFields()) {
                if (f.getJavaType() == FieldDescriptor.JavaType.MESSAGE && holdsTimestamp(f.getMessageType(), seen)) {
                    return true;
                }
            }
            return false;
        }
    }

    private static boolean valid(Message timestamp) {
        long seconds = seconds(timestamp);
        int nanos = nanos(timestamp);
        return seconds >= MIN_SECONDS && seconds <= MAX_SECONDS && nanos >= 0 && nanos < 1_000_000_000;
    }

    private static long seconds(Message timestamp) {
        return (Long) timestamp.getField(timestamp.getDescriptorForType().findFieldByNumber(1));
    }

    private static int nanos(Message timestamp) {
        return (Integer) timestamp.getField(timestamp.getDescriptorForType().findFieldByNumber(2));
    }
}
