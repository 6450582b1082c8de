package io.archiver.format.parquet;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.values.ValuesWriter;
import org.apache.parquet.column.values.dictionary.DictionaryValuesWriter.PlainBinaryDictionaryValuesWriter;
import org.apache.parquet.column.values.dictionary.IntList;
import org.apache.parquet.column.values.factory.DefaultV1ValuesWriterFactory;
import org.apache.parquet.column.values.factory.ValuesWriterFactory;
import org.apache.parquet.column.values.fallback.FallbackValuesWriter;
import org.apache.parquet.column.values.plain.PlainValuesWriter;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

import java.util.ArrayList;
import java.util.List;

/**
 * Parquet's writers of version 1 pages, except that a dictionary-encoded binary column (keys, header keys and
 * values) buffers its page's dictionary ids in a list that starts small and grows with its data.
 *
 * <p>Parquet's own list ({@link IntList}) allocates 4,096 ids (16 KB) at a column's first value: three
 * dictionary columns made 48 KB of an open part file's 82 KB of heap once it held one record, however little data
 * it holds (measured with 3,000 open files). With one file per partition and time folder open until the next
 * checkpoint, that, not the data, decided how many partitions a TaskManager's heap held. The encodings and the
 * bytes written are Parquet's own ({@code CompactDictionaryWritersTest} compares whole files).
 */
final class CompactDictionaryWriters implements ValuesWriterFactory {

    private final DefaultV1ValuesWriterFactory defaults = new DefaultV1ValuesWriterFactory();
    private ParquetProperties properties;

    @Override
    public void initialize(ParquetProperties properties) {
        this.properties = properties;
        defaults.initialize(properties);
    }

    @Override
    public ValuesWriter newValuesWriter(ColumnDescriptor column) {
        if (column.getPrimitiveType().getPrimitiveTypeName() != PrimitiveTypeName.BINARY
                || !properties.isDictionaryEnabled(column)) {
            return defaults.newValuesWriter(column);
        }
        // as DefaultV1ValuesWriterFactory builds it: a dictionary writer falling back to plain encoding
        ValuesWriter plain = new PlainValuesWriter(
                properties.getInitialSlabSize(), properties.getPageSizeThreshold(), properties.getAllocator());
        return FallbackValuesWriter.of(new CompactBinaryDictionaryWriter(properties), plain);
    }

    /** Parquet's binary dictionary writer with a {@link GrowingIntList} for the ids of each page. */
    private static final class CompactBinaryDictionaryWriter extends PlainBinaryDictionaryValuesWriter {

        CompactBinaryDictionaryWriter(ParquetProperties properties) {
            super(properties.getDictionaryPageSizeThreshold(), Encoding.PLAIN_DICTIONARY, Encoding.PLAIN_DICTIONARY,
                    properties.getAllocator());
            encodedValues = new GrowingIntList();
        }

        /** After each page: a fresh list, as Parquet's writer does, but a small one. */
        @Override
        public void reset() {
            super.reset();
            encodedValues = new GrowingIntList();
        }
    }

    /**
     * A list of ints in slabs that start at 64 entries and double up to Parquet's largest (65,536): its heap
     * follows its size. Replaces every method of {@link IntList} that Parquet's dictionary writers call.
     */
    static final class GrowingIntList extends IntList {
        private static final int FIRST_SLAB = 64;
        private static final int LARGEST_SLAB = 64 * 1024;

        private final List<int[]> full = new ArrayList<>();
        private int[] current;
        private int position;
        private int size;

        @Override
        public void add(int value) {
            if (current == null) {
                current = new int[FIRST_SLAB];
            } else if (position == current.length) {
                full.add(current);
                current = new int[Math.min(current.length * 2, LARGEST_SLAB)];
                position = 0;
            }
            current[position++] = value;
            size++;
        }

        @Override
        public IntIterator iterator() {
            int[][] slabs = full.toArray(new int[full.size() + 1][]);
            slabs[full.size()] = current == null ? new int[0] : current;
            return new IntIterator(slabs, size);
        }

        @Override
        public int size() {
            return size;
        }
    }
}
