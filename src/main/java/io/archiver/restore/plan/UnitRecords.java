package io.archiver.restore.plan;

import io.archiver.archive.ArchiveFileReader;
import io.archiver.archive.ArchiveLayout;
import io.archiver.record.ArchiveRecord;

import org.apache.flink.core.fs.Path;

import java.io.IOException;
import java.util.List;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The records of the plan's read units ({@link RestorePlan#readUnits}) in offset order, each archived offset
 * once: a unit of one file is streamed; the files of a unit with several overlap and are merged in memory
 * (the first file's copy of an offset kept). The restore, the placement of consumer groups and the
 * verification all read the archive this way, so they agree on what was restored.
 */
public final class UnitRecords {

    private UnitRecords() {}

    /**
     * The records of {@code partition} in one unit, given by its files' paths (a file of the per-topic layout holds
     * other partitions' records too).
     */
    public static void read(ArchiveFileReader reader, int partition, List<String> paths, Consumer<ArchiveRecord> sink) throws IOException {
        if (paths.size() == 1) {
            read(reader, partition, paths.get(0), sink);
            return;
        }
        TreeMap<Long, ArchiveRecord> byOffset = new TreeMap<>();
        for (String path : paths) {
            read(reader, partition, path, r -> byOffset.putIfAbsent(r.getOffset(), r));
        }
        byOffset.values().forEach(sink);
    }

    private static void read(ArchiveFileReader reader, int partition, String path, Consumer<ArchiveRecord> sink) throws IOException {
        if (ArchiveLayout.sharedFileTopic(path).isPresent()) {
            reader.readPartition(new Path(path), partition, sink);
        } else {
            reader.read(new Path(path), sink);
        }
    }

    /** The selected records of a partition's files, unit after unit. */
    public static void readPartition(ArchiveFileReader reader, int partition, List<RestorePlan.PlannedFile> files, RestoreSelection selection,
            Consumer<ArchiveRecord> sink) throws IOException {
        readPartition(reader, partition, files, selection::takes, sink);
    }

    /** The records of a partition's files that {@code taken} takes, unit after unit. */
    public static void readPartition(ArchiveFileReader reader, int partition, List<RestorePlan.PlannedFile> files, Predicate<ArchiveRecord> taken,
            Consumer<ArchiveRecord> sink) throws IOException {
        for (List<RestorePlan.PlannedFile> unit : RestorePlan.readUnits(files)) {
            read(reader, partition, paths(unit), r -> {
                if (taken.test(r)) {
                    sink.accept(r);
                }
            });
        }
    }

    public static List<String> paths(List<RestorePlan.PlannedFile> unit) {
        return unit.stream().map(RestorePlan.PlannedFile::path).toList();
    }
}
