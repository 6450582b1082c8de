package io.archiver.table;

import io.archiver.sink.files.FileStats;

import java.util.List;

/**
 * A committed data file of the archive, to be appended to its topic's table: where it is, how large, and what it
 * holds of each partition (one range for a file of the per-partition layout, one per partition for a file of the
 * per-topic layout).
 */
public record TableFile(String path, long size, List<FileStats> ranges) {

    public TableFile {
        ranges = List.copyOf(ranges);
        if (ranges.isEmpty()) {
            throw new IllegalArgumentException("A table file holds the records of at least one partition: " + path);
        }
    }

    /** The topic its records belong to (an archive file holds one topic's records). */
    public String topic() {
        return ranges.get(0).topic();
    }

    /** Its records, of every partition. */
    public long records() {
        return ranges.stream().mapToLong(FileStats::records).sum();
    }
}
