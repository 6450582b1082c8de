package io.archiver.format.parquet;

import io.archiver.format.LocalPartFiles;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * DuckDB over files of the per-topic layout: it prunes by topic and time folder (Hive partitioning), pushes a
 * partition filter into the scan, and finds one partition per row group in the statistics it prunes with.
 */
class QueryEnginePruningTest {

    private static final int PARTITIONS = 8;
    private static final int RECORDS_PER_PARTITION = 2_000;

    @TempDir java.nio.file.Path root;

    @Test
    void duckDbSkipsOtherTimeFoldersAndFindsAPartitionsRowGroupsByTheirStatistics() throws Exception {
        write("orders", "date=2026-03-07/part-a-0-0.parquet");
        write("orders", "date=2026-03-08/part-a-0-1.parquet");
        write("payments", "date=2026-03-07/part-a-0-2.parquet");
        String files = "read_parquet('" + root + "/**/*.parquet', hive_partitioning = true)";

        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement()) {
            String query = "SELECT count(*), min(\"offset\"), max(\"offset\") FROM " + files
                    + " WHERE topic = 'orders' AND date = '2026-03-07' AND \"partition\" = 3";
            try (ResultSet rs = s.executeQuery(query)) {
                rs.next();
                assertThat(rs.getLong(1)).isEqualTo(RECORDS_PER_PARTITION);
                assertThat(rs.getLong(2)).isEqualTo(0);
                assertThat(rs.getLong(3)).isEqualTo(RECORDS_PER_PARTITION - 1);
            }
            String plan = text(s.executeQuery("EXPLAIN ANALYZE " + query), 2);
            assertThat(plan).as("folders of other topics and days are not read").contains("Scanning Files: 1/3");
            assertThat(plan).as("the partition filter is evaluated in the scan, against row group statistics").contains("Filters: partition=3");

            List<String> rowGroups = new ArrayList<>();
            try (ResultSet rs = s.executeQuery("SELECT stats_min, stats_max FROM parquet_metadata('" + root
                    + "/topic=orders/date=2026-03-07/part-a-0-0.parquet') WHERE path_in_schema = 'partition' ORDER BY row_group_id")) {
                while (rs.next()) {
                    rowGroups.add(rs.getString(1) + ".." + rs.getString(2));
                }
            }
            assertThat(rowGroups).containsExactly("0..0", "1..1", "2..2", "3..3", "4..4", "5..5", "6..6", "7..7");
        }
    }

    private static String text(ResultSet rs, int column) throws Exception {
        StringBuilder sb = new StringBuilder();
        while (rs.next()) {
            sb.append(rs.getString(column)).append('\n');
        }
        rs.close();
        return sb.toString();
    }

    /** A file of the per-topic layout: partitions arriving interleaved, 600-byte values (a row group each). */
    private void write(String topic, String relative) throws Exception {
        List<ArchiveRecord> records = new ArrayList<>();
        for (int i = 0; i < RECORDS_PER_PARTITION; i++) {
            for (int p = 0; p < PARTITIONS; p++) {
                byte[] value = ("value-" + i + "-" + "x".repeat(600)).getBytes(StandardCharsets.UTF_8);
                records.add(new ArchiveRecord(topic, p, i, 1_772_859_843_000L + i, "CreateTime",
                        ("k" + i).getBytes(StandardCharsets.UTF_8), value, new String[0], new byte[0][]));
            }
        }
        LocalPartFiles.write(root.resolve("topic=" + topic + "/" + relative), new GroupedParquetWriterFactory(
                new EnvelopeParquetBuilder(PayloadFormats.BYTES, ParquetCompression.ZSTD, 3, 32 << 20, 1 << 20)), records);
    }
}
