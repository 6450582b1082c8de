package io.archiver.archive;

import io.archiver.format.FileFormats;
import io.archiver.format.FileFormat;
import io.archiver.format.FormatReader;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;

import org.apache.flink.core.fs.Path;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

import static io.archiver.format.FormatReader.ALL_PARTITIONS;

/**
 * Reads archived files back into {@link ArchiveRecord}s, whatever their format ({@link FileFormats#ofFile}, by
 * name) and filesystem. JSON Lines payloads are decoded with the payload formats they were written with; Parquet
 * payloads are raw bytes whatever the format.
 */
public final class ArchiveFileReader {

    private final PayloadFormats payloads;
    private final Map<String, FormatReader> readers = new HashMap<>();

    public ArchiveFileReader(PayloadFormats payloads) {
        this.payloads = payloads;
    }

    public List<ArchiveRecord> readAll(Path file) throws IOException {
        List<ArchiveRecord> out = new ArrayList<>();
        read(file, out::add);
        return out;
    }

    public void read(Path file, Consumer<ArchiveRecord> sink) throws IOException {
        reader(file).read(file, ALL_PARTITIONS, sink);
    }

    /** {@link #read}, of {@code partition}'s records only: a file of the per-topic layout holds many partitions. */
    public void readPartition(Path file, int partition, Consumer<ArchiveRecord> sink) throws IOException {
        reader(file).read(file, partition, sink);
    }

    /**
     * {@link FormatReader#readKeys}: the records that may have one of {@code keys}, reading no more of the file than the
     * format must; returns whether an index of keys narrowed the read.
     */
    public boolean readKeys(Path file, Collection<byte[]> keys, long beforeMillis, Consumer<ArchiveRecord> sink) throws IOException {
        return reader(file).readKeys(file, keys, beforeMillis, sink);
    }

    /** {@link FormatReader#readWhere}: the records whose typed column holds one of {@code values}, and whether the file could be searched so. */
    public FormatReader.ColumnSearch readWhere(Path file, String column, Collection<String> values, long beforeMillis, Consumer<ArchiveRecord> sink)
            throws IOException {
        return reader(file).readWhere(file, column, values, beforeMillis, sink);
    }

    /** Number of records in a file: from its metadata where the format has it, else by reading. */
    public long count(Path file) throws IOException {
        return reader(file).count(file);
    }

    /** The offset of every record of a file, in file order, reading no more of it than the format must. */
    public void offsets(Path file, LongConsumer sink) throws IOException {
        reader(file).offsets(file, ALL_PARTITIONS, sink);
    }

    /** {@link #offsets}, of {@code partition}'s records only. */
    public void partitionOffsets(Path file, int partition, LongConsumer sink) throws IOException {
        reader(file).offsets(file, partition, sink);
    }

    /** {@link FormatReader#offsetStatistics}: {@code {min, max, count}} from metadata alone, or null. */
    public long[] offsetStatistics(Path file) throws IOException {
        return reader(file).offsetStatistics(file);
    }

    /** {@link FormatReader#sharedFilePartitions}: what a per-topic file holds of each partition. */
    public Map<Integer, long[]> sharedFilePartitions(Path file) throws IOException {
        return reader(file).sharedFilePartitions(file);
    }

    private FormatReader reader(Path file) throws IOException {
        FileFormat format = FileFormats.ofFile(file.getName()).orElseThrow(() -> new IOException(
                "Not an archive file (expected a name ending in " + String.join(", ", FileFormats.suffixes()) + "): " + file));
        return readers.computeIfAbsent(format.name(), name -> format.reader(payloads));
    }
}
