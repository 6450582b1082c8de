package io.archiver.format;

import io.archiver.record.ArchiveRecord;

import org.apache.flink.core.fs.Path;

import java.io.IOException;
import java.util.Collection;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * Reads the files of one {@link FileFormat}. The defaults read every record; a format that can answer from
 * metadata (Parquet's footer and column statistics, its offset column alone) overrides them.
 */
public interface FormatReader {

    /** The {@code partition} argument that reads the records of every partition. */
    int ALL_PARTITIONS = -1;

    /** Every record of {@code partition} (or {@link #ALL_PARTITIONS}) in {@code file}, in file order. */
    void read(Path file, int partition, Consumer<ArchiveRecord> sink) throws IOException;

    /**
     * The records of {@code file} that may have one of {@code keys} (a key's bytes as Kafka holds them) as their key and a
     * timestamp before {@code beforeMillis} ({@link Long#MAX_VALUE}: any): a superset, in file order, the caller selects;
     * their positions, timestamps and keys, their values and headers possibly left out.
     * The default reads every record; a format that indexes keys (Parquet's Bloom filters and statistics) reads only the
     * parts of the file that may hold them. Returns whether an index of the keys narrowed the read (false: every record
     * in the time was read).
     */
    default boolean readKeys(Path file, Collection<byte[]> keys, long beforeMillis, Consumer<ArchiveRecord> sink) throws IOException {
        read(file, ALL_PARTITIONS, sink);
        return false;
    }

    /**
     * The records of {@code file} whose typed column {@code column} (a dot path into a decoded payload, e.g.
     * {@code value_decoded.customer_id}) holds one of {@code values} (as text: a number in decimal, a string as it is) and
     * whose timestamp is before {@code beforeMillis}: their positions and timestamps. Says whether the file could be
     * searched so; the default cannot ({@link ColumnSearch#UNTYPED}).
     *
     * @throws IllegalArgumentException for a column no value given as text can match (in a list, a decimal, bytes)
     */
    default ColumnSearch readWhere(Path file, String column, Collection<String> values, long beforeMillis, Consumer<ArchiveRecord> sink)
            throws IOException {
        return ColumnSearch.UNTYPED;
    }

    /** How a file could be searched by a typed column. */
    enum ColumnSearch {
        /** Searched: the file has the column. */
        SEARCHED,
        /** The file has typed columns of the payload, but not this one (its schema has no such field): none of its records holds it. */
        ABSENT,
        /** The file's payloads are not in typed columns (JSON Lines, or stored as bytes): not searched. */
        UNTYPED
    }

    /** The offset of every record of {@code partition} (or {@link #ALL_PARTITIONS}) in {@code file}, in file order. */
    default void offsets(Path file, int partition, LongConsumer sink) throws IOException {
        read(file, partition, r -> sink.accept(r.getOffset()));
    }

    /** The number of records in {@code file}. */
    default long count(Path file) throws IOException {
        long[] n = {0};
        read(file, ALL_PARTITIONS, r -> n[0]++);
        return n[0];
    }

    /**
     * The smallest and largest offset and the record count of {@code file} from its metadata alone
     * ({@code {min, max, count}}), or null when only reading the records tells.
     */
    default long[] offsetStatistics(Path file) throws IOException {
        return null;
    }

    /**
     * What a file of the per-topic layout holds of each partition, from its metadata: partition to {first offset,
     * last offset, records}; empty for a file without that metadata.
     */
    default Map<Integer, long[]> sharedFilePartitions(Path file) throws IOException {
        return Map.of();
    }
}
