package io.archiver.format.parquet;

import io.archiver.archive.ArchiveFileReader;
import io.archiver.format.LocalPartFiles;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;

import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** A Parquet file written anew without some rows: the others as they were, its schema, codec and metadata kept. */
class ParquetRowRemovalTest {

    private static final EnvelopeParquetBuilder ZSTD =
            new EnvelopeParquetBuilder(PayloadFormats.BYTES, ParquetCompression.ZSTD, 3, 32 << 20, 1 << 20);

    @TempDir java.nio.file.Path dir;

    @Test
    void everyOtherRowOfASharedFileIsReadBackAsItWasAndItsPartitionsCountsDropByThoseLeftOut() throws Exception {
        List<ArchiveRecord> records = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            for (int p = 0; p < 3; p++) {
                records.add(new ArchiveRecord("orders", p, i, 1_772_859_843_000L + i, "CreateTime",
                        i % 10 == 0 ? null : ("k" + i).getBytes(StandardCharsets.UTF_8), ("v-" + p + "-" + i).getBytes(StandardCharsets.UTF_8),
                        new String[] {"h"}, new byte[][] {i % 7 == 0 ? null : "x".getBytes(StandardCharsets.UTF_8)}));
            }
        }
        Path file = LocalPartFiles.write(dir.resolve("shared.parquet"), new GroupedParquetWriterFactory(ZSTD), records);
        Path out = new Path(dir.resolve("erased.parquet").toUri());
        long dropped;
        try (FSDataOutputStream stream = out.getFileSystem().create(out, FileSystem.WriteMode.NO_OVERWRITE)) {
            dropped = ParquetFormat.INSTANCE.copyWithout(file, stream, Map.of(0, Set.of(3L, 4L, 150L), 2, Set.of(0L, 199L, 500L)));
        }

        assertThat(dropped).isEqualTo(5);
        ArchiveFileReader reader = new ArchiveFileReader(PayloadFormats.BYTES);
        List<ArchiveRecord> expected = reader.readAll(file).stream()
                .filter(r -> !(r.getPartition() == 0 && Set.of(3L, 4L, 150L).contains(r.getOffset()))
                        && !(r.getPartition() == 2 && Set.of(0L, 199L).contains(r.getOffset())))
                .toList();
        assertThat(reader.readAll(out)).containsExactlyElementsOf(expected);
        Map<Integer, long[]> ranges = reader.sharedFilePartitions(out);
        assertThat(ranges.get(0)).containsExactly(0, 199, 197);
        assertThat(ranges.get(1)).containsExactly(0, 199, 200);
        assertThat(ranges.get(2)).containsExactly(0, 199, 198);
        ParquetMetadata before = footer(file);
        ParquetMetadata after = footer(out);
        assertThat(after.getFileMetaData().getSchema()).isEqualTo(before.getFileMetaData().getSchema());
        assertThat(after.getBlocks().get(0).getColumns().get(0).getCodec()).isEqualTo(before.getBlocks().get(0).getColumns().get(0).getCodec());
        Map<String, String> metadataBefore = new java.util.HashMap<>(before.getFileMetaData().getKeyValueMetaData());
        Map<String, String> metadataAfter = new java.util.HashMap<>(after.getFileMetaData().getKeyValueMetaData());
        metadataBefore.remove(SharedFilePartitions.KEY);
        metadataAfter.remove(SharedFilePartitions.KEY);
        assertThat(metadataAfter).isEqualTo(metadataBefore);
    }

    private static ParquetMetadata footer(Path file) throws Exception {
        return ParquetFooters.readFooter(file, file.getFileSystem().getFileStatus(file).getLen());
    }
}
