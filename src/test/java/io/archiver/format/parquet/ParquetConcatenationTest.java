package io.archiver.format.parquet;

import io.archiver.archive.ArchiveFileReader;
import io.archiver.format.LocalPartFiles;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;

import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Files of the per-topic layout concatenated: every record as it was, each partition's offsets merged in the footer. */
class ParquetConcatenationTest {

    private static final EnvelopeParquetBuilder SNAPPY =
            new EnvelopeParquetBuilder(PayloadFormats.BYTES, ParquetCompression.SNAPPY, 3, 32 << 20, 1 << 20);

    @TempDir java.nio.file.Path dir;

    @Test
    void theRecordsOfTheFilesAreReadBackInTheirOrderAndTheFooterNamesEachPartitionsWholeRange() throws Exception {
        List<ArchiveRecord> first = records(0, 100, 0, 1);
        List<ArchiveRecord> second = records(100, 50, 1, 2);
        List<ArchiveRecord> third = records(150, 30, 0, 2);
        Path out = concatenate(List.of(write("a", first), write("b", second), write("c", third)), "compacted.parquet");

        ArchiveFileReader reader = new ArchiveFileReader(PayloadFormats.BYTES);
        List<ArchiveRecord> expected = new ArrayList<>();
        for (List<ArchiveRecord> file : List.of(first, second, third)) {
            expected.addAll(reader.readAll(write("again-" + expected.size(), file)));
        }
        assertThat(reader.readAll(out)).containsExactlyElementsOf(expected);
        Map<Integer, long[]> ranges = reader.sharedFilePartitions(out);
        assertThat(ranges).containsOnlyKeys(0, 1, 2);
        assertThat(ranges.get(0)).containsExactly(0, 179, 130);
        assertThat(ranges.get(1)).containsExactly(0, 179, 180);
        assertThat(ranges.get(2)).containsExactly(100, 179, 80);
        List<ArchiveRecord> partition2 = new ArrayList<>();
        reader.readPartition(out, 2, partition2::add);
        assertThat(partition2).extracting(ArchiveRecord::getOffset).hasSize(80).isSorted();
    }

    @Test
    void filesOfAnotherCompressionAreNotOneFile() throws Exception {
        Path snappy = write("a", records(0, 10, 0, 1));
        Path zstd = LocalPartFiles.write(dir.resolve("zstd.parquet"), new GroupedParquetWriterFactory(
                new EnvelopeParquetBuilder(PayloadFormats.BYTES, ParquetCompression.ZSTD, 3, 32 << 20, 1 << 20)), records(10, 10, 0, 1));
        // the compression is per column chunk: the schema and metadata are the same, so these are one kind
        assertThat(ParquetConcatenation.sameKind(footer(snappy))).isEqualTo(ParquetConcatenation.sameKind(footer(zstd)));

        Path other = write("b", records(20, 10, 0, 1));
        var original = footer(other);
        Map<String, String> metadata = new java.util.HashMap<>(original.getFileMetaData().getKeyValueMetaData());
        metadata.put("writer.extra", "x");
        var withOtherMetadata = new org.apache.parquet.hadoop.metadata.ParquetMetadata(new org.apache.parquet.hadoop.metadata.FileMetaData(
                original.getFileMetaData().getSchema(), metadata, "test"), original.getBlocks());
        assertThatThrownBy(() -> concatenate(List.of(snappy, other), "x.parquet", withOtherMetadata))
                .hasMessageContaining("another schema or metadata");
    }

    private static org.apache.parquet.hadoop.metadata.ParquetMetadata footer(Path file) throws Exception {
        return ParquetFooters.readFooter(file, file.getFileSystem().getFileStatus(file).getLen());
    }

    private Path concatenate(List<Path> files, String name) throws Exception {
        return concatenate(files, name, null);
    }

    /** {@code files} as one file; {@code lastFooter} replaces the last file's footer when given. */
    private Path concatenate(List<Path> files, String name, org.apache.parquet.hadoop.metadata.ParquetMetadata lastFooter) throws Exception {
        List<ParquetConcatenation.Input> inputs = new ArrayList<>();
        for (int i = 0; i < files.size(); i++) {
            Path f = files.get(i);
            inputs.add(new ParquetConcatenation.Input(f, f.getFileSystem().getFileStatus(f).getLen(),
                    i == files.size() - 1 && lastFooter != null ? lastFooter : footer(f)));
        }
        Path out = new Path(dir.resolve(name).toUri());
        try (FSDataOutputStream stream = out.getFileSystem().create(out, FileSystem.WriteMode.NO_OVERWRITE)) {
            ParquetConcatenation.concatenate(inputs, stream);
        }
        return out;
    }

    private Path write(String name, List<ArchiveRecord> records) throws Exception {
        return LocalPartFiles.write(dir.resolve(name + ".parquet"), new GroupedParquetWriterFactory(SNAPPY), records);
    }

    /** {@code count} records of each partition {@code from..to}, offsets from {@code first}, arriving round-robin. */
    private static List<ArchiveRecord> records(int first, int count, int from, int to) {
        List<ArchiveRecord> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            for (int p = from; p <= to; p++) {
                out.add(new ArchiveRecord("orders", p, first + i, 1_772_859_843_000L + i, "CreateTime",
                        ("k" + i).getBytes(StandardCharsets.UTF_8), ("v-" + p + "-" + (first + i)).getBytes(StandardCharsets.UTF_8),
                        new String[0], new byte[0][]));
            }
        }
        return out;
    }
}
