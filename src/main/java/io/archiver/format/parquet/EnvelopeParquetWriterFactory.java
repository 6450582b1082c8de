package io.archiver.format.parquet;

import io.archiver.format.BufferingBulkWriter;
import io.archiver.format.SelectiveBulkWriter;
import io.archiver.record.ArchiveRecord;

import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.parquet.hadoop.ParquetWriter;

import java.io.IOException;

/**
 * Writes part files as Parquet with {@link EnvelopeParquetBuilder}, and tells how much each open file buffers
 * in memory (its pages and row group not yet written), so the sink can bound the total its open files hold.
 */
public final class EnvelopeParquetWriterFactory implements BulkWriter.Factory<ArchiveRecord> {

    private static final long serialVersionUID = 1L;

    /**
     * Heap of an open Parquet file's writer besides its data: column writers, level encoders, statistics and the
     * dictionaries of keys and headers. Measured at 26 KB before the first record and 34 KB after it, with the
     * default 1 MB page size and 3,000 open files ({@link CompactDictionaryWriters}; 82 KB with Parquet's own).
     */
    public static final long OPEN_FILE_HEAP = 40 * 1024;

    /**
     * Heap of each typed column (decoded payloads) an open file has beyond the envelope's: its column writer, level
     * encoders, statistics and page buffer. Measured by {@code OpenFileHeapBenchmark}: 34 KB per open file with the
     * value as bytes, 115 KB with 24 more columns (schema id and 23 typed ones), about 3.4 KB each.
     */
    static final long TYPED_COLUMN_HEAP = 3_500;

    private final EnvelopeParquetBuilder builder;

    public EnvelopeParquetWriterFactory(EnvelopeParquetBuilder builder) {
        this.builder = builder;
    }

    @Override
    public BulkWriter<ArchiveRecord> create(FSDataOutputStream out) throws IOException {
        return builder.typed() ? new TypedWriter(out) : new Writer(builder.createWriter(new PartFileOutput(out)), out, builder.bloomFilterHeap());
    }

    private static class Writer implements BufferingBulkWriter<ArchiveRecord> {
        ParquetWriter<ArchiveRecord> parquet;
        final FSDataOutputStream out;
        /** The heap of the file's columns beyond the envelope's (typed files) and of its Bloom filters. */
        long columnsHeap;

        Writer(ParquetWriter<ArchiveRecord> parquet, FSDataOutputStream out, long bloomFilterHeap) {
            this.parquet = parquet;
            this.out = out;
            this.columnsHeap = bloomFilterHeap;
        }

        @Override
        public void addElement(ArchiveRecord record) throws IOException {
            parquet.write(record);
        }

        /** Parquet writes whole row groups: there is nothing to flush before the file is finished. */
        @Override
        public void flush() {}

        /** Writes the last row group and the footer; the file sink closes the stream when it commits. */
        @Override
        public void finish() throws IOException {
            parquet.close();
        }

        /** The writer's own heap plus its data not yet written (the data size counts written and buffered data). */
        @Override
        public long bufferedBytes() {
            if (parquet == null) {
                return OPEN_FILE_HEAP;
            }
            try {
                return OPEN_FILE_HEAP + columnsHeap + Math.max(0, parquet.getDataSize() - out.getPos());
            } catch (IOException e) {
                return OPEN_FILE_HEAP + columnsHeap;
            }
        }
    }

    /**
     * A file with the decoded columns of its reader schemas, chosen at its first record ({@link FileSchemaChooser}):
     * its Parquet writer is created then.
     */
    private final class TypedWriter extends Writer implements SelectiveBulkWriter<ArchiveRecord> {
        private FileSchemas schemas;

        TypedWriter(FSDataOutputStream out) {
            super(null, out, builder.bloomFilterHeap());
        }

        @Override
        public boolean accepts(ArchiveRecord record) throws IOException {
            return schemas == null || builder.schemas().fits(schemas, record);
        }

        @Override
        public void addElement(ArchiveRecord record) throws IOException {
            if (parquet == null) {
                schemas = builder.schemas().choose(record);
                parquet = builder.createWriter(new PartFileOutput(out), schemas);
                columnsHeap += TYPED_COLUMN_HEAP * builder.typedColumns(schemas);
            }
            super.addElement(record);
        }

        @Override
        public void finish() throws IOException {
            if (parquet == null) {
                parquet = builder.createWriter(new PartFileOutput(out), FileSchemas.NONE);
            }
            super.finish();
        }
    }
}
