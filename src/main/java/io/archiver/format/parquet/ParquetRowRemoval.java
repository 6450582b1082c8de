package io.archiver.format.parquet;

import io.archiver.record.EnvelopeFields;

import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.example.data.GroupWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.MessageType;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Writes a Parquet file of the archive anew without some of its rows: the rows are read as Parquet's own records of
 * the file's schema (every column, the typed ones too, as stored: nothing is decoded from the payloads again) and the
 * others written in their order with the same schema, codec, dictionary-encoded columns and key-value metadata, and Bloom
 * filters built anew for the columns that had them; of a file of the per-topic layout
 * the partitions' record counts ({@link SharedFilePartitions}) drop by what was left out, their offset ranges stay
 * (the records left out are accounted for where they were left out, e.g. the erasure log).
 */
final class ParquetRowRemoval {

    private ParquetRowRemoval() {}

    static long copyWithout(Path file, FSDataOutputStream out, Map<Integer, Set<Long>> drop) throws IOException {
        FileSystem fs = file.getFileSystem();
        long length = fs.getFileStatus(file).getLen();
        try (ParquetFileReader reader = ParquetFileReader.open(new FlinkInputFile(fs, file, length))) {
            ParquetMetadata footer = reader.getFooter();
            MessageType schema = footer.getFileMetaData().getSchema();
            RowsWriteSupport rows = new RowsWriteSupport(schema, footer.getFileMetaData().getKeyValueMetaData());
            // filters anew for the columns that had them: the old ones would still answer for the records left out
            Builder builder = BloomFilters.enable(new Builder(new PartFileOutput(out), rows), List.copyOf(BloomFilters.columnsWithFilters(footer)));
            // dictionaries where the file had them (Parquet writes no Bloom filter for a column chunk of dictionary pages only)
            builder.withDictionaryEncoding(false);
            for (String column : ParquetFooters.columnsWhere(footer, ColumnChunkMetaData::hasDictionaryPage)) {
                builder.withDictionaryEncoding(column, true);
            }
            try (ParquetWriter<Group> writer = builder
                    .withConf(new Configuration(false))
                    .withCompressionCodec(codec(footer))
                    .withWriteMode(ParquetFileWriter.Mode.CREATE)
                    .build()) {
                ColumnIOFactory columns = new ColumnIOFactory();
                PageReadStore rowGroup;
                while ((rowGroup = reader.readNextRowGroup()) != null) {
                    RecordReader<Group> read = columns.getColumnIO(schema).getRecordReader(rowGroup, new GroupRecordConverter(schema));
                    for (long i = 0; i < rowGroup.getRowCount(); i++) {
                        Group row = read.read();
                        int partition = row.getInteger(EnvelopeFields.PARTITION, 0);
                        if (drop.getOrDefault(partition, Set.of()).contains(row.getLong(EnvelopeFields.OFFSET, 0))) {
                            rows.leftOut(partition);
                        } else {
                            writer.write(row);
                        }
                    }
                }
            }
            return rows.dropped;
        }
    }

    /** The codec of the file's first column chunk (the archive's files use one codec throughout). */
    private static CompressionCodecName codec(ParquetMetadata footer) {
        for (BlockMetaData block : footer.getBlocks()) {
            if (!block.getColumns().isEmpty()) {
                return block.getColumns().get(0).getCodec();
            }
        }
        return CompressionCodecName.UNCOMPRESSED;
    }

    /** Writes rows of the file's schema with its metadata; at the end, the per-topic layout's counts less what was left out. */
    private static final class RowsWriteSupport extends WriteSupport<Group> {
        private final MessageType schema;
        private final Map<String, String> metadata;
        private final Map<Integer, long[]> ranges;
        private GroupWriter writer;
        private long dropped;

        RowsWriteSupport(MessageType schema, Map<String, String> metadata) {
            this.schema = schema;
            this.metadata = metadata;
            String shared = metadata.get(SharedFilePartitions.KEY);
            this.ranges = shared == null ? null : new TreeMap<>(SharedFilePartitions.decode(shared));
        }

        void leftOut(int partition) {
            dropped++;
            if (ranges != null && ranges.containsKey(partition)) {
                ranges.get(partition)[2]--;
            }
        }

        @Override
        public WriteContext init(Configuration configuration) {
            return new WriteContext(schema, metadata);
        }

        @Override
        public void prepareForWrite(RecordConsumer consumer) {
            writer = new GroupWriter(consumer, schema);
        }

        @Override
        public void write(Group row) {
            writer.write(row);
        }

        @Override
        public FinalizedWriteContext finalizeWrite() {
            return new FinalizedWriteContext(ranges == null ? Map.of() : Map.of(SharedFilePartitions.KEY, SharedFilePartitions.encode(ranges)));
        }
    }

    private static final class Builder extends ParquetWriter.Builder<Group, Builder> {
        private final RowsWriteSupport support;

        Builder(OutputFile file, RowsWriteSupport support) {
            super(file);
            this.support = support;
        }

        @Override
        protected Builder self() {
            return this;
        }

        @Override
        protected WriteSupport<Group> getWriteSupport(Configuration conf) {
            return support;
        }
    }
}
