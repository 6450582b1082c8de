package io.archiver.restore.plan;

import io.archiver.archive.ArchiveFile;
import io.archiver.archive.ArchiveFiles;
import io.archiver.archive.ArchiveFileReader;

import org.apache.kafka.common.TopicPartition;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The committed archive files a restore reads, per archived partition in offset order, with the offsets,
 * records and bytes each holds. Only committed files are listed (hidden and in-progress objects never are).
 */
public final class RestorePlan {

    /** One archived file: where it is and the offsets it holds. */
    public record PlannedFile(String path, long firstOffset, long lastOffset, long records, long bytes) {}

    private final Map<TopicPartition, List<PlannedFile>> partitions;

    private RestorePlan(Map<TopicPartition, List<PlannedFile>> partitions) {
        this.partitions = partitions;
    }

    /** The plan of {@code archive} for {@code selection}, reading each file's offsets. */
    public static RestorePlan of(ArchiveFiles archive, RestoreSelection selection, ArchiveFileReader reader) throws IOException {
        Map<TopicPartition, List<PlannedFile>> partitions =
                new TreeMap<>(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
        for (ArchiveFile file : archive.list().committed()) {
            if (!selection.takes(file.topic()) || !selection.takes(file.topic(), file.partition(), 0, Long.MAX_VALUE)) {
                continue;
            }
            long[] stats = file.offsetStatistics(reader);
            if (stats == null) {
                long[] scanned = {Long.MAX_VALUE, Long.MIN_VALUE, 0};
                file.offsets(reader, offset -> {
                    scanned[0] = Math.min(scanned[0], offset);
                    scanned[1] = Math.max(scanned[1], offset);
                    scanned[2]++;
                });
                stats = scanned;
            }
            if (stats[2] > 0 && selection.takes(file.topic(), file.partition(), stats[0], stats[1])) {
                partitions.computeIfAbsent(new TopicPartition(file.topic(), file.partition()), tp -> new ArrayList<>())
                        .add(new PlannedFile(file.path().toString(), stats[0], stats[1], stats[2], file.size()));
            }
        }
        partitions.values().forEach(files -> files.sort(Comparator.comparingLong(PlannedFile::firstOffset)));
        return new RestorePlan(partitions);
    }

    public Map<TopicPartition, List<PlannedFile>> partitions() {
        return partitions;
    }

    /**
     * A partition's files as read units, in offset order: files whose offset ranges overlap (offsets archived
     * twice, or a repaired run inside another file's range) form one unit, read together and merged by offset;
     * every other file is a unit of its own. Units never overlap, so reading them one after the other writes
     * each archived offset once, in offset order.
     */
    public static List<List<PlannedFile>> readUnits(List<PlannedFile> files) {
        List<List<PlannedFile>> units = new ArrayList<>();
        long unitEnd = Long.MIN_VALUE;
        for (PlannedFile f : files) {
            if (units.isEmpty() || f.firstOffset() > unitEnd) {
                units.add(new ArrayList<>());
            }
            units.get(units.size() - 1).add(f);
            unitEnd = Math.max(unitEnd, f.lastOffset());
        }
        return units;
    }

    /** Every file, a partition's files together and in offset order. */
    public List<PlannedFile> files() {
        List<PlannedFile> all = new ArrayList<>();
        partitions.values().forEach(all::addAll);
        return all;
    }

    /** Per partition: target, files, offsets, records and bytes; then the totals. */
    public void print(PrintWriter out, RestoreSelection selection) {
        out.printf("%-28s %-28s %6s %12s %12s %10s %12s%n", "archived partition", "restored to", "files", "first offset",
                "last offset", "records", "bytes");
        long records = 0;
        long bytes = 0;
        int files = 0;
        for (Map.Entry<TopicPartition, List<PlannedFile>> e : partitions.entrySet()) {
            List<PlannedFile> f = e.getValue();
            long r = f.stream().mapToLong(PlannedFile::records).sum();
            long b = f.stream().mapToLong(PlannedFile::bytes).sum();
            TopicPartition tp = e.getKey();
            out.printf("%-28s %-28s %6d %12d %12d %10d %12d%n", tp, selection.target(tp.topic()) + "-" + tp.partition(), f.size(),
                    f.get(0).firstOffset(), f.get(f.size() - 1).lastOffset(), r, b);
            records += r;
            bytes += b;
            files += f.size();
        }
        out.printf("%d partitions, %d files, %d records, %d bytes%s%n", partitions.size(), files, records, bytes,
                selection.filtersRecords() ? " in these files (only the records of" + selection.describeLimits() + " are restored)" : "");
        out.flush();
    }
}
