package io.archiver.format.parquet;

import io.archiver.archive.ArchiveFileReader;
import io.archiver.config.PayloadFormat;
import io.archiver.format.LocalPartFiles;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;
import io.archiver.registry.RegistryPayloads;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
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

    @Test
    void typedColumnsOfTheOtherRowsStayAsTheyWereWithoutTheRegistry() throws Exception {
        Schema card = TypedAvroColumnsTest.ORDER_V1.getField("payment").schema().getTypes().get(1);
        List<ArchiveRecord> records = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            records.add(TypedAvroColumnsTest.record(i, i % 10 == 3 ? null : RegistryPayloads.encode(7, TypedAvroColumnsTest.ORDER_V1,
                    TypedAvroColumnsTest.order(TypedAvroColumnsTest.ORDER_V1, i, "c" + i, "1.0" + i % 10, "PAID",
                            i % 2 == 0 ? new GenericData.Record(card) : null))));
        }
        Path file = LocalPartFiles.write(dir.resolve("typed.parquet"), new EnvelopeParquetWriterFactory(
                TypedColumnsFixture.builder(PayloadFormat.BYTES, PayloadFormat.AVRO, TypedAvroColumnsTest.REGISTRY)), records);
        Path out = new Path(dir.resolve("typed-erased.parquet").toUri());
        try (FSDataOutputStream stream = out.getFileSystem().create(out, FileSystem.WriteMode.NO_OVERWRITE)) {
            ParquetFormat.INSTANCE.copyWithout(file, stream, Map.of(records.get(0).getPartition(), Set.of(4L, 5L, 29L)));
        }

        assertThat(TypedColumnsFixture.readBack(out)).as("the records, raw bytes included")
                .containsExactlyElementsOf(records.stream().filter(r -> !Set.of(4L, 5L, 29L).contains(r.getOffset())).toList());
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT (SELECT count(*) FROM read_parquet('" + out.getPath() + "')), (SELECT count(*) FROM ("
                        + "SELECT * FROM read_parquet('" + file.getPath() + "') WHERE \"offset\" NOT IN (4, 5, 29) "
                        + "EXCEPT SELECT * FROM read_parquet('" + out.getPath() + "')))")) {
            rs.next();
            assertThat(rs.getLong(1)).isEqualTo(27);
            assertThat(rs.getLong(2)).as("rows whose columns, typed ones included, differ from the original's").isZero();
        }
    }

    private static ParquetMetadata footer(Path file) throws Exception {
        return ParquetFooters.readFooter(file, file.getFileSystem().getFileStatus(file).getLen());
    }
}
