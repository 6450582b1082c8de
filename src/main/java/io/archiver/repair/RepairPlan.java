package io.archiver.repair;

import io.archiver.audit.AuditReport;
import io.archiver.audit.PartitionAudit;

import org.apache.flink.core.fs.Path;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What {@code repair} will do, derived from an audit: per partition the runs of committed records to archive
 * from Kafka (missing), and the files to rewrite without some of their records (the extra copies of
 * duplicated offsets, archived records of aborted transactions, records at offsets Kafka holds nothing at).
 * Of a duplicated offset the copy in a file the partition's position record lists is kept, else the copy in
 * the oldest file. Drops name the partition as well as the offset: a file of the per-topic layout holds many
 * partitions. Next to a running job ({@code listedFiles} given) a file the position record lists is never
 * rewritten, since a start without state checks that those files exist: such files wait for the partition's
 * next commit and a second repair.
 */
public final class RepairPlan {

    private final Map<String, List<long[]>> missing = new TreeMap<>();
    /** Runs of dead-lettered or skipped records to archive from Kafka where they are valid now ({@code --rearchive-rejected}). */
    private final Map<String, List<long[]>> rejected = new TreeMap<>();
    private final List<String> rejectedLeft = new ArrayList<>();
    private final Map<String, Map<Integer, Map<Long, Integer>>> drops = new TreeMap<>();
    /** Runs of archived offsets no committed reader sees, per partition: dropped from whichever files hold them. */
    private final Map<String, List<long[]>> notInKafka = new TreeMap<>();
    private final List<String> held = new ArrayList<>();
    /** Archived records left where they are, and why: of transactions still open, truncated from Kafka. */
    private final List<String> keptInArchive = new ArrayList<>();

    /**
     * {@code listedFiles}: the object keys (path without scheme and authority) the position records list;
     * {@code modified}: each archive file's modification time.
     */
    public static RepairPlan of(AuditReport audit, Set<String> listedFiles, Map<String, Long> modified) {
        return of(audit, listedFiles, modified, false);
    }

    /**
     * {@link #of(AuditReport, Set, Map)}; with {@code rearchiveRejected} the dead-lettered and skipped records too are read
     * from Kafka and archived where they are valid in the configured formats now (once a schema or format is fixed).
     */
    public static RepairPlan of(AuditReport audit, Set<String> listedFiles, Map<String, Long> modified, boolean rearchiveRejected) {
        RepairPlan plan = new RepairPlan();
        for (PartitionAudit p : audit.getPartitions()) {
            String tp = p.getTopic() + "-" + p.getPartition();
            if (p.getMissing() > 0) {
                plan.missing.put(tp, p.getMissingRanges());
            }
            if (p.getDeadLettered() + p.getSkipped() > 0) {
                if (rearchiveRejected) {
                    plan.rearchive(tp, p);
                } else {
                    plan.rejectedLeft.add(tp + ": " + p.getDeadLettered() + " dead-lettered and " + p.getSkipped() + " skipped records are"
                            + " not missing (errors.policy rejected them); --rearchive-rejected archives those valid in the formats now");
                }
            }
            if (p.getTruncatedRecords() > 0) {
                plan.keptInArchive.add(tp + ": " + p.getTruncatedRecords() + " archived records Kafka truncated from its log are kept"
                        + " (the archive is their only copy; docs/operations.md, \"Kafka truncated its log\")");
            }
            if (p.getOpenTransactionRecords() > 0) {
                plan.keptInArchive.add(tp + ": " + p.getOpenTransactionRecords() + " archived records of transactions still open"
                        + " are left (they may yet commit); audit again once they are decided");
            }
            p.duplicateFiles().forEach((offset, files) -> plan.dropDuplicates(p.getPartition(), offset, files, listedFiles, modified));
            List<long[]> notInKafka = new ArrayList<>(p.getAbortedRanges());
            notInKafka.addAll(p.getAbsentRanges());
            if (!notInKafka.isEmpty()) {
                plan.notInKafka.put(tp, notInKafka);
            }
        }
        return plan;
    }

    /**
     * The partition's dead-lettered and skipped records to archive: those below its position record's next offset. A start
     * without state resumes there, reading later ones again (now valid, it would archive them a second time); they wait
     * until the job archives a later record of the partition.
     */
    private void rearchive(String tp, PartitionAudit p) {
        List<long[]> all = new ArrayList<>(p.getDeadLetteredRanges());
        all.addAll(p.getSkippedRanges());
        all.sort(Comparator.comparingLong(r -> r[0]));
        long position = p.getResumeOffset() < 0 ? Long.MAX_VALUE : p.getResumeOffset();
        List<long[]> below = new ArrayList<>();
        for (long[] run : all) {
            if (run[0] < position) {
                below.add(new long[] {run[0], Math.min(run[1], position - 1)});
            }
        }
        if (!below.isEmpty()) {
            rejected.put(tp, below);
        }
        if (all.get(all.size() - 1)[1] >= position) {
            rejectedLeft.add(tp + ": rejected records at or after offset " + position + ", the partition's position record: a start"
                    + " without state would read them again; re-archive them once the job has archived a later record");
        }
    }

    private void dropDuplicates(int partition, long offset, List<String> files, Set<String> listed, Map<String, Long> modified) {
        String keep = files.get(0);
        for (String f : files) {
            boolean fListed = listed.contains(key(f));
            boolean keepListed = listed.contains(key(keep));
            if (fListed && !keepListed
                    || fListed == keepListed && modified.getOrDefault(f, Long.MAX_VALUE) < modified.getOrDefault(keep, Long.MAX_VALUE)) {
                keep = f;
            }
        }
        boolean kept = false;
        for (String f : files) {
            if (f.equals(keep) && !kept) {
                kept = true;
                continue;
            }
            if (listed.contains(key(f))) {
                held.add(f + ": keeps a copy of offset " + offset + " of partition " + partition + " (the partition's latest commit lists it)");
                continue;
            }
            drops.computeIfAbsent(f, k -> new TreeMap<>()).computeIfAbsent(partition, k -> new TreeMap<>()).merge(offset, 1, Integer::sum);
        }
    }

    /** The object key of a path: what position records list. */
    static String key(String path) {
        return new Path(path).toUri().getPath().replaceFirst("^/", "");
    }

    /** Runs {@code [first, last]} of committed records to archive from Kafka, per {@code topic-partition}. */
    public Map<String, List<long[]>> missing() {
        return Collections.unmodifiableMap(missing);
    }

    /** Runs {@code [first, last]} of dead-lettered or skipped records to archive from Kafka where valid now, per {@code topic-partition}. */
    public Map<String, List<long[]>> rejected() {
        return Collections.unmodifiableMap(rejected);
    }

    /** Per file and partition, the copies of duplicated offsets to drop. */
    public Map<String, Map<Integer, Map<Long, Integer>>> duplicateDrops() {
        return Collections.unmodifiableMap(drops);
    }

    /** Per {@code topic-partition}, runs of archived offsets no committed reader sees. */
    public Map<String, List<long[]>> notInKafka() {
        return Collections.unmodifiableMap(notInKafka);
    }

    /** What the plan leaves alone and why. */
    public List<String> leftAlone() {
        List<String> out = new ArrayList<>(held);
        out.addAll(keptInArchive);
        out.addAll(rejectedLeft);
        return out;
    }

    public boolean isEmpty() {
        return missing.isEmpty() && rejected.isEmpty() && drops.isEmpty() && notInKafka.isEmpty();
    }

    public void print(PrintWriter out) {
        missing.forEach((tp, runs) -> out.printf("Archive from Kafka, %s: the missing records at %s%n", tp, runs(runs)));
        rejected.forEach((tp, runs) -> out.printf("Archive from Kafka where valid now, %s: the dead-lettered or skipped records at %s%n",
                tp, runs(runs)));
        drops.forEach((file, partitions) -> out.printf("Drop from %s: the extra copies of duplicated offsets (%d)%n", file,
                partitions.values().stream().mapToInt(Map::size).sum()));
        notInKafka.forEach((tp, runs) -> out.printf("Drop from the files of %s: archived records no committed reader sees (%s)%n", tp, runs(runs)));
        leftAlone().forEach(l -> out.println("Left alone: " + l));
    }

    private static String runs(List<long[]> runs) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < runs.size() && i < 10; i++) {
            sb.append(i == 0 ? "" : ", ").append(runs.get(i)[0]).append("..").append(runs.get(i)[1]);
        }
        return runs.size() > 10 ? sb + ", ..." : sb.toString();
    }
}
