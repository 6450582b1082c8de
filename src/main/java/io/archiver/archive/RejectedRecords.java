package io.archiver.archive;

import io.archiver.format.jsonl.JsonCompression;
import io.archiver.format.jsonl.JsonLinesFormat;
import io.archiver.format.jsonl.JsonLinesWriterFactory;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.DeadLetter;
import io.archiver.record.PayloadFormats;

import org.apache.flink.api.common.serialization.BulkWriter;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The records left out of the archive on purpose: by {@code errors.policy}, dead letters (written whole under
 * {@code errors.dead-letter.path}) and skipped records (their topic, partition, offset and reason, never their
 * payloads, in the skip log under {@code <sink.path>/_archiver/skipped}); and records erased on request (their
 * positions in the erasure log under {@code <sink.path>/_archiver/erased}, written as the skip log is). Both places are JSON Lines files in
 * {@code topic=…/partition=…} folders, committed with the job's checkpoints as the archive's files are. An audit
 * counts these offsets as accounted for, not missing; {@code repair} archives them only when asked to.
 *
 * <p>An offset recorded twice (a start without state after a crash between the archive's commit and the
 * dead-letter sink's) counts once; one rejected both ways counts as dead-lettered, one erased as erased.
 */
public final class RejectedRecords {

    /** Why a record is not in the archive. */
    public enum Kind {
        DEAD_LETTERED,
        SKIPPED,
        /** Erased on request (the erasure log): also from the dead letters, so it outranks the other kinds. */
        ERASED
    }

    /** The reads of dead letters and skip log entries carry their payloads as bytes, whatever the archive's formats. */
    private static final ArchiveFileReader READER = new ArchiveFileReader(PayloadFormats.BYTES);

    private final Map<String, OfPartition> partitions;

    private RejectedRecords(Map<String, OfPartition> partitions) {
        this.partitions = partitions;
    }

    /** How dead letters and skip log entries are written: JSON Lines, uncompressed, every payload as base64 bytes. */
    public static BulkWriter.Factory<ArchiveRecord> writer() {
        return new JsonLinesWriterFactory(PayloadFormats.BYTES, JsonCompression.NONE, 0);
    }

    /** The file name suffix of dead-letter and skip log files. */
    public static String suffix() {
        return JsonLinesFormat.suffix(JsonCompression.NONE);
    }

    /** Reads the dead letters under {@code deadLetterPath}, and the skip log and erasure log of the archive under {@code root}. */
    public static RejectedRecords read(ArchiveRoot root, String deadLetterPath) throws IOException {
        Map<String, Builder> builders = new TreeMap<>();
        Map<String, String> reasons = new HashMap<>();
        readPlace(deadLetterPath, Kind.DEAD_LETTERED, builders, reasons);
        readPlace(root.skipLog().toString(), Kind.SKIPPED, builders, reasons);
        readPlace(root.erasureLog().toString(), Kind.ERASED, builders, reasons);
        Map<String, OfPartition> partitions = new HashMap<>();
        builders.forEach((id, b) -> partitions.put(id, b.build()));
        return new RejectedRecords(partitions);
    }

    private static void readPlace(String path, Kind kind, Map<String, Builder> builders, Map<String, String> reasons)
            throws IOException {
        for (ArchiveFile file : ArchiveScanner.committedFiles(path)) {
            Builder b = builders.computeIfAbsent(VerificationReport.id(file.topic(), file.partition()), id -> new Builder());
            file.read(READER, r -> b.add(r.getOffset(), kind, reasons.computeIfAbsent(reasonOf(r), x -> x)));
        }
    }

    private static String reasonOf(ArchiveRecord r) {
        return r instanceof DeadLetter d && d.getReason() != null ? d.getReason() : "(no reason recorded)";
    }

    /** The rejected records of one partition; empty when it has none. */
    public OfPartition of(String topic, int partition) {
        return partitions.getOrDefault(VerificationReport.id(topic, partition), OfPartition.NONE);
    }

    /** One partition's rejected offsets, ascending and distinct, each with its kind and reason. */
    public static final class OfPartition {

        public static final OfPartition NONE = new OfPartition(new long[0], new Kind[0], new String[0]);

        private final long[] offsets;
        private final Kind[] kinds;
        private final String[] reasons;

        private OfPartition(long[] offsets, Kind[] kinds, String[] reasons) {
            this.offsets = offsets;
            this.kinds = kinds;
            this.reasons = reasons;
        }

        /** {@code offsets} ascending and distinct, each with the kind and reason at its index. */
        public static OfPartition of(long[] offsets, Kind[] kinds, String[] reasons) {
            return new OfPartition(offsets.clone(), kinds.clone(), reasons.clone());
        }

        public int size() {
            return offsets.length;
        }

        public long offset(int i) {
            return offsets[i];
        }

        public Kind kind(int i) {
            return kinds[i];
        }

        public String reason(int i) {
            return reasons[i];
        }

        /** Smallest rejected offset, -1 when none. */
        public long first() {
            return offsets.length == 0 ? -1 : offsets[0];
        }

        /** Largest rejected offset, -1 when none. */
        public long last() {
            return offsets.length == 0 ? -1 : offsets[offsets.length - 1];
        }
    }

    private static final class Builder {
        private final TreeMap<Long, Integer> index = new TreeMap<>();
        private final List<Kind> kinds = new ArrayList<>();
        private final List<String> reasons = new ArrayList<>();

        void add(long offset, Kind kind, String reason) {
            Integer i = index.get(offset);
            if (i == null) {
                index.put(offset, kinds.size());
                kinds.add(kind);
                reasons.add(reason);
            } else if (rank(kind) > rank(kinds.get(i))) {
                kinds.set(i, kind);
                reasons.set(i, reason);
            }
        }

        /** Which kind an offset recorded as two counts as: erased, then dead-lettered, then skipped. */
        private static int rank(Kind kind) {
            return switch (kind) {
                case ERASED -> 2;
                case DEAD_LETTERED -> 1;
                case SKIPPED -> 0;
            };
        }

        OfPartition build() {
            long[] offsets = new long[index.size()];
            Kind[] k = new Kind[offsets.length];
            String[] r = new String[offsets.length];
            int n = 0;
            for (Map.Entry<Long, Integer> e : index.entrySet()) {
                offsets[n] = e.getKey();
                k[n] = kinds.get(e.getValue());
                r[n] = reasons.get(e.getValue());
                n++;
            }
            return new OfPartition(offsets, k, r);
        }
    }
}
