package io.archiver.format.parquet;

import org.apache.flink.core.fs.Path;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;

import static io.archiver.record.EnvelopeFields.OFFSET;

/** What the footer of an archive's Parquet file says, read without reading its rows. */
public final class ParquetFooters {

    private ParquetFooters() {}

    /** The smallest and largest offset and the record count of a file ({@code {min, max, count}}) from its footer, or null
     * when the footer does not tell (no statistics, no records). */
    public static long[] offsetStatistics(ParquetMetadata footer) {
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        long count = 0;
        for (BlockMetaData block : footer.getBlocks()) {
            count += block.getRowCount();
            for (ColumnChunkMetaData column : block.getColumns()) {
                if (column.getPath().toDotString().equals(OFFSET)) {
                    Statistics<?> stats = column.getStatistics();
                    if (stats == null || !stats.hasNonNullValue()) {
                        return null;
                    }
                    min = Math.min(min, (Long) stats.genericGetMin());
                    max = Math.max(max, (Long) stats.genericGetMax());
                }
            }
        }
        return count == 0 ? null : new long[] {min, max, count};
    }

    /** What a file of the per-topic layout holds of each partition (partition to {first, last, records}), from its footer. */
    public static Map<Integer, long[]> sharedFilePartitions(ParquetMetadata footer) {
        return SharedFilePartitions.decode(footer.getFileMetaData().getKeyValueMetaData().get(SharedFilePartitions.KEY));
    }

    /** The footer of {@code file}, {@code length} bytes long. */
    public static ParquetMetadata readFooter(Path file, long length) throws IOException {
        try (ParquetFileReader reader = ParquetFileReader.open(new FlinkInputFile(file.getFileSystem(), file, length))) {
            return reader.getFooter();
        }
    }

    /** The footers of {@code files} (path to length), read on {@code pool}, by path. */
    public static Map<String, ParquetMetadata> readFooters(Map<String, Long> files, ExecutorService pool) throws IOException {
        Map<String, Future<ParquetMetadata>> reads = new LinkedHashMap<>();
        files.forEach((path, length) -> reads.put(path, pool.submit(() -> readFooter(new Path(path), length))));
        Map<String, ParquetMetadata> out = new LinkedHashMap<>();
        try {
            for (Map.Entry<String, Future<ParquetMetadata>> r : reads.entrySet()) {
                out.put(r.getKey(), r.getValue().get());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("Interrupted while reading the footers of " + files.size() + " files");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new IOException("Cannot read a footer", e.getCause());
        } finally {
            reads.values().forEach(f -> f.cancel(true));
        }
        return out;
    }

    /** The columns (dot paths) of which some row group's chunk is {@code which}, in order. */
    static Set<String> columnsWhere(ParquetMetadata footer, Predicate<ColumnChunkMetaData> which) {
        Set<String> columns = new TreeSet<>();
        for (BlockMetaData block : footer.getBlocks()) {
            for (ColumnChunkMetaData chunk : block.getColumns()) {
                if (which.test(chunk)) {
                    columns.add(chunk.getPath().toDotString());
                }
            }
        }
        return columns;
    }
}
