package io.archiver.table;

import io.archiver.config.CatalogType;
import io.archiver.config.SinkLayout;
import io.archiver.config.TimePartitioning;
import io.archiver.format.LocalPartFiles;
import io.archiver.format.parquet.EnvelopeParquetBuilder;
import io.archiver.format.parquet.EnvelopeParquetWriterFactory;
import io.archiver.format.parquet.ParquetCompression;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;
import io.archiver.sink.files.FileStats;
import io.archiver.testutils.IcebergRows;

import org.apache.flink.core.fs.Path;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Appending archive files to a topic's table on a real SQLite catalog over local files, and reading them back with Iceberg's reader. */
class ArchiveTableTest {

    @TempDir
    java.nio.file.Path dir;

    private final ExecutorService pool = Executors.newFixedThreadPool(2);
    private ArchiveCatalog catalog;

    @BeforeEach
    void openCatalog() {
        catalog = ArchiveCatalog.open(new TableSettings(CatalogType.JDBC, "test", "jdbc:sqlite:" + dir.resolve("catalog.db"),
                dir.resolve("warehouse").toUri().toString(), null, null, null, null, Map.of(), "kafka", "", true,
                SinkLayout.PER_PARTITION, TimePartitioning.DAY, PayloadFormats.BYTES));
    }

    @AfterEach
    void close() throws Exception {
        catalog.close();
        pool.shutdownNow();
    }

    @Test
    void appendedFilesAreReadBackByIcebergsReaderAndAppendingThemAgainAddsNothing() throws Exception {
        List<ArchiveRecord> records = records();
        TableFile file = write("topic=orders/partition=2/date=2026-01-01/part-a.parquet", records);
        ArchiveTable table = catalog.table("orders");

        ArchiveTable.Appended first = table.append(List.of(file), Map.of(TablePositions.CHECKPOINT, "7"), pool);
        ArchiveTable.Appended again = table.append(List.of(file), Map.of(TablePositions.CHECKPOINT, "7"), pool);

        assertThat(first.files()).isEqualTo(1);
        assertThat(first.records()).isEqualTo(records.size());
        assertThat(again.files()).as("files appended a second time").isZero();
        assertThat(table.positions().next(2)).contains(44L);
        assertThat(offsetsAndKeys(table.table())).containsExactly("41:k-1", "42:null", "43:k-3");
        assertThat(table.table().currentSnapshot().summary())
                .containsEntry(TablePositions.CHECKPOINT, "7").containsEntry(TablePositions.NEXT_OFFSETS, "2=44");
    }

    @Test
    void aFileBelowThePositionTheTableDoesNotListIsRefused() throws Exception {
        ArchiveTable table = catalog.table("orders");
        table.append(List.of(write("topic=orders/partition=2/date=2026-01-01/part-a.parquet", records())), Map.of(), pool);
        TableFile recreated = new TableFile(dir.resolve("elsewhere.parquet").toUri().toString(), 10, List.of(new FileStats("orders", 2, 0, 3, 4)));

        assertThatThrownBy(() -> table.append(List.of(recreated), Map.of(), pool)).hasMessageContaining("offsets went back");
    }

    /** Three records of partition 2 on 2026-01-01: with headers, without key, value or headers, with a header. */
    private static List<ArchiveRecord> records() {
        byte[] k1 = "k-1".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] k3 = "k-3".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        return List.of(
                new ArchiveRecord("orders", 2, 41, 1_767_225_600_000L, "CreateTime", k1, new byte[] {1, 2},
                        new String[] {"trace", "empty"}, new byte[][] {{7}, null}),
                new ArchiveRecord("orders", 2, 42, 1_767_225_601_000L, "LogAppendTime", null, null, new String[0], new byte[0][]),
                new ArchiveRecord("orders", 2, 43, 1_767_225_602_000L, "CreateTime", k3, new byte[] {3}, new String[] {"h"}, new byte[][] {{9}}));
    }

    private TableFile write(String relative, List<ArchiveRecord> records) throws Exception {
        java.nio.file.Path local = dir.resolve("archive").resolve(relative);
        java.nio.file.Files.createDirectories(local.getParent());
        Path path = LocalPartFiles.write(local, new EnvelopeParquetWriterFactory(
                new EnvelopeParquetBuilder(PayloadFormats.BYTES, ParquetCompression.ZSTD, 3, 1 << 20, 64 * 1024)), records);
        long first = records.get(0).getOffset();
        long last = records.get(records.size() - 1).getOffset();
        return new TableFile(path.toString(), java.nio.file.Files.size(local),
                List.of(new FileStats(records.get(0).getTopic(), records.get(0).getPartition(), first, last, records.size())));
    }

    private static List<String> offsetsAndKeys(Table table) throws Exception {
        List<String> out = new ArrayList<>();
        for (Record r : IcebergRows.of(table)) {
            java.nio.ByteBuffer key = (java.nio.ByteBuffer) r.getField("key");
            out.add(r.getField("offset") + ":" + (key == null ? "null" : java.nio.charset.StandardCharsets.UTF_8.decode(key.duplicate())));
        }
        return out;
    }
}
