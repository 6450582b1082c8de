package io.archiver.archive;

import io.archiver.record.PayloadFormats;
import io.archiver.record.RecordDigest;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Reads every committed file under an archive root and reports, per topic partition, the offsets present,
 * the holes between them and the offsets held more than once (with their files), plus what is there but
 * not committed: leftover temporary objects and (on S3) incomplete multipart uploads. The tests prove
 * exactly-once with it; the {@code audit} command builds on it.
 */
public final class ArchiveVerifier {

    /** Offsets and file indexes are packed into one long while collecting: 2^20 files, 2^43 offsets. */
    private static final int FILE_BITS = 20;
    private static final long FILE_MASK = (1L << FILE_BITS) - 1;

    private final PayloadFormats formats;
    private final IncompleteUploads uploads;

    public ArchiveVerifier(PayloadFormats formats, IncompleteUploads uploads) {
        this.formats = formats;
        this.uploads = uploads;
    }

    /** Reads every record of every committed file (exact). */
    public VerificationReport verify(ArchiveFiles files) throws IOException {
        return verify(files, true);
    }

    /**
     * With {@code deep} false, a Parquet file whose footer says it holds as many records as offsets between
     * its first and last one is not read: it holds each of them once (a file is written from one sequential
     * read of its partition). Other Parquet files (on transactional and compacted topics most are not dense)
     * are read by their offset column only, every JSON Lines file line by line. With {@code deep} every record
     * of every file is read and decoded in full, and the report keeps each offset's {@link RecordDigest}.
     */
    public VerificationReport verify(ArchiveFiles files, boolean deep) throws IOException {
        return verify(files.root(), files.list(), deep, report -> {});
    }

    /**
     * {@link #verify(ArchiveFiles, boolean)} of what {@code listing} holds, handing each partition's report to {@code
     * onPartition} as soon as its files are read (a partition's files are contiguous in the sorted listing), so
     * that the caller can compare it with Kafka while the next partitions are read.
     */
    public VerificationReport verify(ArchiveRoot root, ArchiveListing listing, boolean deep, Consumer<PartitionReport> onPartition)
            throws IOException {
        return new VerificationReport(read(root, listing, deep, onPartition), listing.committed(), listing.leftovers(), uploads.list(root.uri()));
    }

    /**
     * The committed files of {@code listing} read as {@link #verify(ArchiveRoot, ArchiveListing, boolean, Consumer)} reads them,
     * without looking for what is not committed: a report per partition, keyed by {@code topic-partition}.
     */
    public Map<String, PartitionReport> read(ArchiveRoot root, ArchiveListing listing, boolean deep, Consumer<PartitionReport> onPartition)
            throws IOException {
        ArchiveFileReader reader = new ArchiveFileReader(formats);
        Map<String, PartitionReport> partitions = new TreeMap<>();
        Collector c = null;
        for (ArchiveFile file : listing.committed()) {
            String id = VerificationReport.id(file.topic(), file.partition());
            if (c == null || !c.id().equals(id)) {
                finish(c, partitions, onPartition);
                if (partitions.containsKey(id)) {
                    throw new IllegalStateException("The files of " + id + " are not contiguous in the listing of " + root);
                }
                c = new Collector(file.topic(), file.partition(), deep);
            }
            Collector partition = c;
            int index = partition.addFile(file);
            long[] stats = deep ? null : file.offsetStatistics(reader);
            if (stats != null && stats[1] - stats[0] + 1 == stats[2]) {
                for (long offset = stats[0]; offset <= stats[1]; offset++) {
                    partition.add(offset, index);
                }
            } else if (deep) {
                file.read(reader, r -> partition.add(r.getOffset(), index, RecordDigest.of(r), r.getTimestamp()));
            } else {
                file.offsets(reader, offset -> partition.add(offset, index));
            }
        }
        finish(c, partitions, onPartition);
        return partitions;
    }

    private static void finish(Collector c, Map<String, PartitionReport> partitions, Consumer<PartitionReport> onPartition) {
        if (c != null) {
            PartitionReport report = c.report();
            // the digests go to the comparison alone, which drops them once it is done: the report keeps offsets only
            partitions.put(c.id(), report.withoutDigests());
            onPartition.accept(report);
        }
    }

    /** Collects the offsets of one partition (with {@code digests}, each record's digest too), then sorts them once. */
    private static final class Collector {
        private final String topic;
        private final int partition;
        private final List<String> files = new ArrayList<>();
        private long bytes;
        private long[] packed = new long[1024];
        /** In the order of {@link #packed}: each record's digest, when kept. */
        private long[] words;
        private long[] timestamps;
        private int size;

        Collector(String topic, int partition, boolean digests) {
            this.topic = topic;
            this.partition = partition;
            if (digests) {
                words = new long[packed.length];
                timestamps = new long[packed.length];
            }
        }

        String id() {
            return VerificationReport.id(topic, partition);
        }

        int addFile(ArchiveFile file) {
            if (files.size() > FILE_MASK) {
                throw new IllegalStateException("More than " + FILE_MASK + " files in " + topic + "-" + partition);
            }
            files.add(file.path().toString());
            bytes += file.size();
            return files.size() - 1;
        }

        void add(long offset, int file) {
            if (offset < 0 || offset >= (1L << (63 - FILE_BITS))) {
                throw new IllegalStateException("Offset " + offset + " out of range in " + topic + "-" + partition);
            }
            if (size == packed.length) {
                packed = Arrays.copyOf(packed, size * 2);
            }
            packed[size++] = (offset << FILE_BITS) | file;
        }

        void add(long offset, int file, long word, long timestamp) {
            add(offset, file);
            if (words.length < packed.length) {
                words = Arrays.copyOf(words, packed.length);
                timestamps = Arrays.copyOf(timestamps, packed.length);
            }
            words[size - 1] = word;
            timestamps[size - 1] = timestamp;
        }

        PartitionReport report() {
            long[] sorted = Arrays.copyOf(packed, size);
            Arrays.sort(sorted);
            long[] distinct = new long[size];
            int n = 0;
            Map<Long, List<String>> duplicates = PartitionReport.newDuplicates();
            Map<Long, String> firstFile = new HashMap<>();
            for (long p : sorted) {
                long offset = p >>> FILE_BITS;
                String file = files.get((int) (p & FILE_MASK));
                if (n > 0 && distinct[n - 1] == offset) {
                    duplicates.computeIfAbsent(offset, o -> new ArrayList<>(List.of(firstFile.get(o)))).add(file);
                } else {
                    distinct[n++] = offset;
                    firstFile.clear();
                    firstFile.put(offset, file);
                }
            }
            long[] offsets = Arrays.copyOf(distinct, n);
            if (words == null) {
                return new PartitionReport(topic, partition, files, bytes, offsets, duplicates);
            }
            // the digest of an offset's first copy in reading order (a duplicate is a finding of its own)
            long[] wordOf = new long[n];
            long[] timestampOf = new long[n];
            BitSet set = new BitSet(n);
            for (int j = 0; j < size; j++) {
                int i = Arrays.binarySearch(offsets, packed[j] >>> FILE_BITS);
                if (!set.get(i)) {
                    set.set(i);
                    wordOf[i] = words[j];
                    timestampOf[i] = timestamps[j];
                }
            }
            return new PartitionReport(topic, partition, files, bytes, offsets, duplicates, new PartitionReport.Digests(wordOf, timestampOf));
        }
    }
}
