package io.archiver.format.parquet;

import io.archiver.config.ParquetCompression;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;

import org.apache.parquet.hadoop.ParquetWriter;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.function.IntFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The compact dictionary writers write the very bytes Parquet's own writers write: files compared whole, over
 * many pages (each page resets the list of dictionary ids), a dictionary that stays, and one that outgrows its
 * page size so the column falls back to plain encoding.
 */
class CompactDictionaryWritersTest {

    @Test
    void filesAreByteForByteParquetsOwnAcrossPagesAndADictionaryThatFallsBackToPlain() throws Exception {
        // header keys are the dictionary-encoded column: a few names repeating, and unique long names
        IntFunction<ArchiveRecord> repeatedHeaderKeys = i -> record(i, "customer-" + (i % 37), i % 3, h -> "h" + h);
        IntFunction<ArchiveRecord> uniqueLongHeaderKeys = i -> record(i, "key-" + i, 2, h -> "h" + h + "-" + i + "-" + "x".repeat(120));
        for (IntFunction<ArchiveRecord> records : java.util.List.of(repeatedHeaderKeys, uniqueLongHeaderKeys)) {
            byte[] compact = write(true, records);
            byte[] parquets = write(false, records);
            assertThat(compact.length).isGreaterThan(100_000);
            assertThat(compact).isEqualTo(parquets);
        }
    }

    @Test
    void theGrowingListHoldsEveryIdInOrderAcrossItsSlabs() {
        CompactDictionaryWriters.GrowingIntList list = new CompactDictionaryWriters.GrowingIntList();
        assertThat(list.iterator().hasNext()).isFalse();
        for (int i = 0; i < 200_000; i++) {
            list.add(i * 7);
        }
        assertThat(list.size()).isEqualTo(200_000);
        var ids = list.iterator();
        for (int i = 0; i < 200_000; i++) {
            assertThat(ids.hasNext()).isTrue();
            assertThat(ids.next()).isEqualTo(i * 7);
        }
        assertThat(ids.hasNext()).isFalse();
    }

    /** 30,000 records with 8 KB pages and 256 KB dictionary pages. */
    private static byte[] write(boolean ours, IntFunction<ArchiveRecord> records) throws Exception {
        EnvelopeParquetBuilder builder =
                new EnvelopeParquetBuilder(PayloadFormats.BYTES, ParquetCompression.SNAPPY, 1, 1 << 20, 8 * 1024);
        MemoryParquetFile file = new MemoryParquetFile();
        try (ParquetWriter<ArchiveRecord> writer = builder.createWriter(file, ours)) {
            for (int i = 0; i < 30_000; i++) {
                writer.write(records.apply(i));
            }
        }
        return file.bytes();
    }

    private static ArchiveRecord record(int i, String key, int headers, IntFunction<String> headerKey) {
        String[] keys = new String[headers];
        byte[][] values = new byte[headers][];
        for (int h = 0; h < headers; h++) {
            keys[h] = headerKey.apply(h);
            values[h] = ("header-" + (i % 5)).getBytes(StandardCharsets.UTF_8);
        }
        return new ArchiveRecord("t", 0, i, 1_700_000_000_000L + i, "CreateTime", key.getBytes(StandardCharsets.UTF_8),
                ("{\"i\":" + i + "}").getBytes(StandardCharsets.UTF_8), keys, values);
    }
}
