package io.archiver.format.parquet;

import io.archiver.format.BufferingBulkWriter;
import io.archiver.format.SelectiveBulkWriter;
import io.archiver.record.ArchiveRecord;

import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.FileMetaData;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes part files that hold many Kafka partitions (the per-topic layout) as Parquet whose rows are grouped by
 * partition, in offset order within each, and whose row groups end at partition boundaries: a row group holds one
 * partition, or consecutive small ones until it reaches {@link #ROW_GROUP_MINIMUM} of encoded data (a partition
 * holding that much in memory starts a row group of its own). The row groups' statistics of the {@code partition} and {@code offset} columns then let readers and query engines skip to a
 * partition's records.
 *
 * <p>Records are kept as they arrive, per partition, and encoded when the file is finished (at the checkpoint
 * barrier, or earlier to keep within the subtask's buffer budget), each group of partitions by a writer of its own
 * into memory whose row groups are then copied into the part file: so a file costs its records' heap, plus one
 * list per partition, and never a Parquet writer per partition. The footer also names each partition's offsets
 * ({@link SharedFilePartitions}).
 */
public final class GroupedParquetWriterFactory implements BulkWriter.Factory<ArchiveRecord> {

    private static final long serialVersionUID = 1L;

    /** A row group closes at the end of a partition once it holds this much encoded data. */
    static final long ROW_GROUP_MINIMUM = 1024 * 1024;

    /** Heap of an open file besides its records: the map of partitions and the writer. */
    private static final long OPEN_FILE_HEAP = 1024;

    /** Heap of a record besides its payload bytes: the object, its arrays and strings, the list slot. */
    private static final long RECORD_OVERHEAD = 160;

    private final EnvelopeParquetBuilder builder;

    public GroupedParquetWriterFactory(EnvelopeParquetBuilder builder) {
        this.builder = builder;
    }

    @Override
    public BulkWriter<ArchiveRecord> create(FSDataOutputStream out) {
        return new Writer(out);
    }

    /** The heap {@code r} holds while it waits in an open file. */
    static long heapOf(ArchiveRecord r) {
        long bytes = RECORD_OVERHEAD + length(r.getKey()) + length(r.getValue());
        if (r.getHeaderKeys() != null) {
            for (int i = 0; i < r.getHeaderKeys().length; i++) {
                bytes += 56 + 2L * r.getHeaderKeys()[i].length() + length(r.getHeaderValues()[i]);
            }
        }
        return bytes;
    }

    private static long length(byte[] b) {
        return b == null ? 0 : b.length;
    }

    private final class Writer implements BufferingBulkWriter<ArchiveRecord>, SelectiveBulkWriter<ArchiveRecord> {
        private final FSDataOutputStream out;
        /** The reader schemas of a typed file, chosen at its first record. */
        private FileSchemas schemas = FileSchemas.NONE;
        private boolean empty = true;
        private final Map<Integer, Buffered> partitions = new TreeMap<>();
        private Buffered current;
        private int currentPartition = -1;
        private long buffered;

        Writer(FSDataOutputStream out) {
            this.out = out;
        }

        @Override
        public boolean accepts(ArchiveRecord r) throws IOException {
            return empty || !builder.typed() || builder.schemas().fits(schemas, r);
        }

        @Override
        public void addElement(ArchiveRecord r) throws IOException {
            if (empty && builder.typed()) {
                schemas = builder.schemas().choose(r);
            }
            empty = false;
            if (r.getPartition() != currentPartition || current == null) {
                currentPartition = r.getPartition();
                current = partitions.computeIfAbsent(currentPartition, p -> new Buffered());
            }
            long heap = heapOf(r);
            current.records.add(r);
            current.heap += heap;
            buffered += heap;
        }

        /** Nothing is written before the file is finished. */
        @Override
        public void flush() {}

        @Override
        public void finish() throws IOException {
            RowGroups groups = new RowGroups(out, schemas);
            Map<Integer, long[]> ranges = new TreeMap<>();
            for (Map.Entry<Integer, Buffered> partition : partitions.entrySet()) {
                List<ArchiveRecord> records = partition.getValue().records;
                ranges.put(partition.getKey(), new long[] {
                        records.get(0).getOffset(), records.get(records.size() - 1).getOffset(), records.size()});
                if (partition.getValue().heap >= ROW_GROUP_MINIMUM) {
                    groups.end();
                }
                groups.write(records);
                if (groups.encodedSize() >= ROW_GROUP_MINIMUM) {
                    groups.end();
                }
            }
            partitions.clear();
            current = null;
            buffered = 0;
            groups.finish(Map.of(SharedFilePartitions.KEY, SharedFilePartitions.encode(ranges)));
        }

        @Override
        public long bufferedBytes() {
            return OPEN_FILE_HEAP + buffered;
        }
    }

    /**
     * The row groups of a part file: consecutive partitions are encoded by a Parquet writer of their own into
     * memory, whose row groups {@link #end} copies into the part file (started with the first of them).
     */
    private final class RowGroups {
        private final FSDataOutputStream out;
        private ParquetFileWriter file;
        private MemoryParquetFile group;
        private ParquetWriter<ArchiveRecord> writer;
        private final FileSchemas schemas;
        private Map<String, String> metadata = Map.of();

        RowGroups(FSDataOutputStream out, FileSchemas schemas) {
            this.out = out;
            this.schemas = schemas;
        }

        void write(List<ArchiveRecord> records) throws IOException {
            if (writer == null) {
                group = new MemoryParquetFile();
                writer = builder.createWriter(group, schemas);
            }
            for (ArchiveRecord r : records) {
                writer.write(r);
            }
        }

        long encodedSize() {
            return writer == null ? 0 : writer.getDataSize();
        }

        /** Ends the open group, if any: its row groups join the part file. */
        void end() throws IOException {
            if (writer == null) {
                return;
            }
            writer.close();
            writer = null;
            if (file == null) {
                FileMetaData meta = footerOf(group);
                metadata = meta.getKeyValueMetaData();
                file = new ParquetFileWriter(new PartFileOutput(out), meta.getSchema(), ParquetFileWriter.Mode.CREATE, 0, 0);
                file.start();
            }
            RowGroupCopy.append(file, group);
        }

        /** Ends the last group and writes the footer: the writers' key-value metadata and {@code extra}. */
        void finish(Map<String, String> extra) throws IOException {
            end();
            if (file != null) {
                Map<String, String> all = new HashMap<>(metadata);
                all.putAll(extra);
                file.end(all);
            }
        }
    }

    /** A partition's records waiting in an open file, and the heap they hold. */
    private static final class Buffered {
        final List<ArchiveRecord> records = new ArrayList<>();
        long heap;
    }

    private static FileMetaData footerOf(MemoryParquetFile file) throws IOException {
        try (ParquetFileReader reader = ParquetFileReader.open(file)) {
            return reader.getFooter().getFileMetaData();
        }
    }

}
