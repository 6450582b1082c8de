package io.archiver.format.parquet;

import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;

import org.apache.parquet.hadoop.ParquetWriter;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.function.IntFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The compact dictionary writers and the recycled page buffers write the very bytes Parquet's own writers and
 * buffers write: files compared whole, over many pages (each page resets the list of dictionary ids and releases
 * its buffers), a second file of the same subtask (written with buffers the first released), a dictionary that
 * stays, and one that outgrows its page size so the column falls back to plain encoding.
 */
class CompactDictionaryWritersTest {

    @Test
    void filesAreByteForByteParquetsOwnAcrossPagesAndADictionaryThatFallsBackToPlain() throws Exception {
        // header keys are the dictionary-encoded column: a few names repeating, and unique long names
        IntFunction<ArchiveRecord> repeatedHeaderKeys = i -> record(i, "customer-" + (i % 37), i % 3, h -> "h" + h);
        IntFunction<ArchiveRecord> uniqueLongHeaderKeys = i -> record(i, "key-" + i, 2, h -> "h" + h + "-" + i + "-" + "x".repeat(120));
        // values of 1 KiB: their pages' buffers are large enough to be kept and handed out again
        IntFunction<ArchiveRecord> largeValues = i -> new ArchiveRecord("t", 0, i, 1_700_000_000_000L + i, "CreateTime",
                ("key-" + i).getBytes(StandardCharsets.UTF_8), ("v" + i).repeat(300).getBytes(StandardCharsets.UTF_8),
                new String[] {"h"}, new byte[][] {{1}});
        for (IntFunction<ArchiveRecord> records : java.util.List.of(repeatedHeaderKeys, uniqueLongHeaderKeys, largeValues)) {
            byte[][] compact = write(true, records);
            byte[][] parquets = write(false, records);
            assertThat(compact[0].length).isGreaterThan(100_000);
            assertThat(compact[0]).isEqualTo(parquets[0]);
            assertThat(compact[1]).as("the subtask's second file").isEqualTo(parquets[1]);
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

    /** Two files of 30,000 records (the second shifted by one) with 8 KB pages and 256 KB dictionary pages, by one builder. */
    private static byte[][] write(boolean ours, IntFunction<ArchiveRecord> records) throws Exception {
        EnvelopeParquetBuilder builder =
                new EnvelopeParquetBuilder(PayloadFormats.BYTES, ParquetCompression.SNAPPY, 1, 1 << 20, 8 * 1024);
        byte[][] files = new byte[2][];
        for (int f = 0; f < files.length; f++) {
            MemoryParquetFile file = new MemoryParquetFile();
            try (ParquetWriter<ArchiveRecord> writer = builder.createWriter(file, ours)) {
                for (int i = 0; i < 30_000; i++) {
                    writer.write(records.apply(i + f));
                }
            }
            files[f] = file.bytes();
        }
        return files;
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
