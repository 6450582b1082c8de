package io.archiver.format.parquet;

import io.archiver.record.EnvelopeFields;

import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;

import java.util.List;
import java.util.Set;

/**
 * The Parquet Bloom filters of archive files ({@code sink.parquet.bloom-filter-columns}): Parquet's own split-block
 * filters, one per row group and column, read by Parquet's row group filter (an erasure's search, query engines'
 * equality filters). Each is sized to its row group's distinct values: Parquet's adaptive filter fills candidates from
 * {@value #MAX_KB} KB down to {@value #MIN_KB} KB side by side and writes the smallest that holds them at 1 % false
 * positives, so a file of a thousand records carries a filter of a few KB, and a row group of more distinct values
 * than the largest holds gets the largest (more false positives, never a false negative).
 */
public final class BloomFilters {

    /** The largest filter of a row group and column: about 210,000 distinct values at 1 % false positives. */
    static final int MAX_KB = 256;
    /** The smallest: about 1,500 distinct values at 1 %. */
    static final int MIN_KB = 2;
    /** The candidates: {@value #MAX_KB} KB, half of it, … down to {@value #MIN_KB} KB. */
    private static final int CANDIDATES = Integer.numberOfTrailingZeros(MAX_KB / MIN_KB) + 1;
    /** Heap of one column's candidates while a row group is written: every candidate at once. */
    static final int HEAP_KB = 2 * MAX_KB - MIN_KB;

    private BloomFilters() {}

    /** Whether {@code column} may carry Bloom filters: a payload column, or a typed column of a decoded payload. */
    static boolean takes(String column) {
        return column.equals(EnvelopeFields.KEY) || column.equals(EnvelopeFields.VALUE)
                || (column.startsWith(EnvelopeFields.KEY_DECODED + ".") || column.startsWith(EnvelopeFields.VALUE_DECODED + "."))
                        && !column.endsWith(".") && !column.contains("..");
    }

    /** Heap an open file's writer holds for the filters of {@code columns} (its candidates). */
    static long heap(List<String> columns) {
        return (long) columns.size() * HEAP_KB * 1024;
    }

    /** Sets {@code builder} to write filters of {@code columns} (those its files' schema lacks are passed over by Parquet). */
    static <T, B extends ParquetWriter.Builder<T, B>> B enable(B builder, List<String> columns) {
        if (columns.isEmpty()) {
            return builder;
        }
        builder.withAdaptiveBloomFilterEnabled(true).withMaxBloomFilterBytes(MAX_KB * 1024);
        for (String column : columns) {
            builder.withBloomFilterEnabled(column, true).withBloomFilterCandidateNumber(column, CANDIDATES);
        }
        return builder;
    }

    /** The columns (dot paths) of which {@code footer}'s file carries a filter in some row group. */
    static Set<String> columnsWithFilters(ParquetMetadata footer) {
        return ParquetFooters.columnsWhere(footer, chunk -> chunk.getBloomFilterOffset() >= 0);
    }
}
