package io.archiver.format.parquet;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.values.bloomfilter.BloomFilter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * Copies the row groups of a Parquet file into another being written, as they are, with their Bloom filters (Parquet's
 * own {@code appendFile} leaves them out). Column and offset indexes are not carried over: reading them would cost a
 * read per column chunk at the input's end.
 */
final class RowGroupCopy {

    private RowGroupCopy() {}

    /** Appends every row group of {@code in} (of {@code target}'s schema) to {@code target}. */
    static void append(ParquetFileWriter target, InputFile in) throws IOException {
        try (ParquetFileReader reader = ParquetFileReader.open(in);
                SeekableInputStream from = in.newStream()) {
            for (BlockMetaData block : reader.getFooter().getBlocks()) {
                Map<String, ColumnChunkMetaData> chunks = new HashMap<>();
                boolean filters = false;
                for (ColumnChunkMetaData chunk : block.getColumns()) {
                    chunks.put(chunk.getPath().toDotString(), chunk);
                    filters |= chunk.getBloomFilterOffset() >= 0;
                }
                if (!filters) {
                    target.appendRowGroup(from, block, false);
                    continue;
                }
                target.startBlock(block.getRowCount());
                for (ColumnDescriptor column : reader.getFooter().getFileMetaData().getSchema().getColumns()) {
                    ColumnChunkMetaData chunk = chunks.get(String.join(".", column.getPath()));
                    if (chunk == null) {
                        throw new IOException("Column " + String.join(".", column.getPath()) + " missing in a row group of " + in);
                    }
                    BloomFilter filter = reader.readBloomFilter(chunk);
                    target.appendColumnChunk(column, from, chunk, filter, null, null);
                }
                target.endBlock();
            }
        }
    }
}
