package io.archiver.archive;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the committed archive holds for one topic partition: files, bytes, records, the offsets present,
 * the holes between them, and every offset found more than once with the files that hold it.
 *
 * <p>A hole is only a candidate gap: Kafka offsets are not dense (transaction markers, compaction), so the
 * audit checks holes against Kafka before calling them gaps.
 */
public final class PartitionReport {

    private final String topic;
    private final int partition;
    private final List<String> files;
    private final long bytes;
    private final long[] offsets;
    private final Map<Long, List<String>> duplicates;
    private final Digests digests;

    /**
     * The {@link io.archiver.record.RecordDigest} of each distinct offset, in the order of {@link #offsets()}: a deep read keeps
     * them so that an audit compares content with Kafka. {@code words[i]} and {@code timestamps[i]} are the digest of
     * {@code offsets()[i]}.
     */
    public record Digests(long[] words, long[] timestamps) {
        Digests upTo(int end) {
            return new Digests(Arrays.copyOf(words, end), Arrays.copyOf(timestamps, end));
        }
    }

    public PartitionReport(String topic, int partition, List<String> files, long bytes, long[] offsets,
            Map<Long, List<String>> duplicates) {
        this(topic, partition, files, bytes, offsets, duplicates, null);
    }

    /** {@code digests}: of every offset, or null when the files were not read in full. */
    public PartitionReport(String topic, int partition, List<String> files, long bytes, long[] offsets,
            Map<Long, List<String>> duplicates, Digests digests) {
        this.topic = topic;
        this.partition = partition;
        this.files = Collections.unmodifiableList(files);
        this.bytes = bytes;
        this.offsets = offsets;
        this.duplicates = Collections.unmodifiableMap(duplicates);
        this.digests = digests;
    }

    /** This report without its digests (they cost 16 bytes a record). */
    public PartitionReport withoutDigests() {
        return digests == null ? this : new PartitionReport(topic, partition, files, bytes, offsets, duplicates, null);
    }

    /** Each offset's content digest, or null when the files were not read in full. */
    public Digests digests() {
        return digests;
    }

    public String topic() {
        return topic;
    }

    public int partition() {
        return partition;
    }

    public List<String> files() {
        return files;
    }

    /** Bytes of the files holding the partition's records (the whole file, of a file holding other partitions too). */
    public long bytes() {
        return bytes;
    }

    /** Archived records, duplicates included. */
    public long records() {
        long extra = 0;
        for (List<String> where : duplicates.values()) {
            extra += where.size() - 1;
        }
        return offsets.length + extra;
    }

    /** Distinct archived offsets, ascending. */
    public long[] offsets() {
        return offsets.clone();
    }

    public boolean contains(long offset) {
        return Arrays.binarySearch(offsets, offset) >= 0;
    }

    /** Smallest archived offset, or -1 when nothing is archived. */
    public long firstOffset() {
        return offsets.length == 0 ? -1 : offsets[0];
    }

    /** Largest archived offset, or -1 when nothing is archived. */
    public long lastOffset() {
        return offsets.length == 0 ? -1 : offsets[offsets.length - 1];
    }

    /** Offsets archived more than once, each with the files that hold it (a file twice if it holds it twice). */
    public Map<Long, List<String>> duplicates() {
        return duplicates;
    }

    /** Holes between the first and last archived offset, as {@code [from, to)} ranges. */
    public List<long[]> holes() {
        List<long[]> holes = new ArrayList<>();
        for (int i = 1; i < offsets.length; i++) {
            if (offsets[i] > offsets[i - 1] + 1) {
                holes.add(new long[] {offsets[i - 1] + 1, offsets[i]});
            }
        }
        return holes;
    }

    /** This report without the offsets after {@code last} (its files and bytes as they are). */
    public PartitionReport upTo(long last) {
        int end = Arrays.binarySearch(offsets, last);
        end = end >= 0 ? end + 1 : -end - 1;
        Map<Long, List<String>> kept = newDuplicates();
        duplicates.forEach((offset, where) -> {
            if (offset <= last) {
                kept.put(offset, where);
            }
        });
        return new PartitionReport(topic, partition, files, bytes, Arrays.copyOf(offsets, end), kept,
                digests == null ? null : digests.upTo(end));
    }

    public static Map<Long, List<String>> newDuplicates() {
        return new TreeMap<>();
    }
}
