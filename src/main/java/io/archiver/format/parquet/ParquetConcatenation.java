package io.archiver.format.parquet;

import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.Path;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.MessageType;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes Parquet files of the archive, one after another, as one file: their row groups copied as they are (no record
 * decoded or encoded again, so every record keeps its bytes, envelope and typed columns), their footers' key-value
 * metadata kept, and of files of the per-topic layout the partitions' offsets ({@link SharedFilePartitions}) merged.
 * Files can be one file when they have the same schema and the same metadata but those offsets ({@link #sameKind}).
 * Their Bloom filters are carried over, their column and offset indexes not ({@link RowGroupCopy}).
 */
public final class ParquetConcatenation {

    /** A file to copy: where it is, its length and its footer. */
    public record Input(Path path, long size, ParquetMetadata footer) {}

    private ParquetConcatenation() {}

    /** What files must share to be concatenated: their schema and their key-value metadata but the partitions' offsets. */
    public static String sameKind(ParquetMetadata footer) {
        Map<String, String> meta = new TreeMap<>(footer.getFileMetaData().getKeyValueMetaData());
        meta.remove(SharedFilePartitions.KEY);
        return footer.getFileMetaData().getSchema() + "\n" + meta;
    }

    /** Writes {@code inputs}, in their order, into {@code out} (not closed) as one Parquet file; returns its records. */
    public static long concatenate(List<Input> inputs, FSDataOutputStream out) throws IOException {
        if (inputs.isEmpty()) {
            throw new IllegalArgumentException("nothing to concatenate");
        }
        ParquetMetadata first = inputs.get(0).footer();
        MessageType schema = first.getFileMetaData().getSchema();
        String kind = sameKind(first);
        Map<String, String> meta = new HashMap<>(first.getFileMetaData().getKeyValueMetaData());
        boolean shared = meta.containsKey(SharedFilePartitions.KEY);
        Map<Integer, long[]> ranges = new TreeMap<>();
        ParquetFileWriter file = new ParquetFileWriter(new PartFileOutput(out), schema, ParquetFileWriter.Mode.CREATE, 0, 0);
        file.start();
        long records = 0;
        for (Input in : inputs) {
            if (!kind.equals(sameKind(in.footer()))) {
                throw new IOException(in.path() + " has another schema or metadata than " + inputs.get(0).path() + ": not one file");
            }
            RowGroupCopy.append(file, new FlinkInputFile(in.path().getFileSystem(), in.path(), in.size()));
            records += in.footer().getBlocks().stream().mapToLong(b -> b.getRowCount()).sum();
            if (shared) {
                ParquetFooters.sharedFilePartitions(in.footer()).forEach((p, r) -> ranges.merge(p, r.clone(),
                        (a, b) -> new long[] {Math.min(a[0], b[0]), Math.max(a[1], b[1]), a[2] + b[2]}));
            }
        }
        if (shared) {
            meta.put(SharedFilePartitions.KEY, SharedFilePartitions.encode(ranges));
        }
        file.end(meta);
        return records;
    }
}
