package io.archiver.format.parquet;

import java.util.Map;
import java.util.TreeMap;

/**
 * What a file of the per-topic layout holds of each partition, kept in its Parquet footer (key-value metadata
 * {@value #KEY}) so that listing the archive finds a partition's files by reading footers alone:
 * {@code <partition>:<first offset>-<last offset>:<records>} per partition, separated by {@code ;}.
 */
public final class SharedFilePartitions {

    public static final String KEY = "kafka-s3-archiver.partitions";

    private SharedFilePartitions() {}

    /** The metadata value of {@code ranges}: partition to {first offset, last offset, records}. */
    static String encode(Map<Integer, long[]> ranges) {
        StringBuilder sb = new StringBuilder(ranges.size() * 24);
        ranges.forEach((p, r) -> {
            if (sb.length() > 0) {
                sb.append(';');
            }
            sb.append(p).append(':').append(r[0]).append('-').append(r[1]).append(':').append(r[2]);
        });
        return sb.toString();
    }

    /** Partition to {first offset, last offset, records}, from a metadata value. */
    public static Map<Integer, long[]> decode(String value) {
        Map<Integer, long[]> ranges = new TreeMap<>();
        if (value == null || value.isEmpty()) {
            return ranges;
        }
        for (String entry : value.split(";")) {
            String[] parts = entry.split(":");
            String[] offsets = parts[1].split("-");
            ranges.put(Integer.parseInt(parts[0]),
                    new long[] {Long.parseLong(offsets[0]), Long.parseLong(offsets[1]), Long.parseLong(parts[2])});
        }
        return ranges;
    }
}
