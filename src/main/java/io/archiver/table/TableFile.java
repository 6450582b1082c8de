package io.archiver.table;

import io.archiver.archive.ArchiveLayout;
import io.archiver.format.parquet.ParquetFooters;
import io.archiver.sink.files.FileStats;

import org.apache.flink.core.fs.Path;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

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

    /** The table file of a committed archive file whose offsets only its footer tells ({@code size} bytes). */
    public static TableFile fromFooter(Path path, long size) throws IOException {
        ParquetMetadata footer = ParquetFooters.readFooter(path, size);
        List<FileStats> stats = new ArrayList<>();
        Optional<ArchiveLayout.TopicPartitionDir> dir = ArchiveLayout.partitionOf(path.toString());
        if (dir.isPresent()) {
            long[] s = ParquetFooters.offsetStatistics(footer);
            if (s != null) {
                stats.add(new FileStats(dir.get().topic(), dir.get().partition(), s[0], s[1], s[2]));
            }
        } else {
            String topic = ArchiveLayout.sharedFileTopic(path.toString()).orElseThrow(
                    () -> new IOException("Not a file of the archive's layout: " + path));
            ParquetFooters.sharedFilePartitions(footer).forEach((p, s) -> stats.add(new FileStats(topic, p, s[0], s[1], s[2])));
        }
        if (stats.isEmpty()) {
            throw new IOException("No offsets in the footer of " + path + ": cannot append it to its table");
        }
        return new TableFile(path.toString(), size, stats);
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
