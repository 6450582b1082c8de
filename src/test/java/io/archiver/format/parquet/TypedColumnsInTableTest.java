package io.archiver.format.parquet;

import io.archiver.config.CatalogType;
import io.archiver.config.PayloadFormat;
import io.archiver.config.SinkLayout;
import io.archiver.config.TimePartitioning;
import io.archiver.format.LocalPartFiles;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;
import io.archiver.registry.RegistryPayloads;
import io.archiver.sink.files.FileStats;
import io.archiver.table.ArchiveCatalog;
import io.archiver.table.ArchiveTable;
import io.archiver.table.TableFile;
import io.archiver.table.TableSettings;
import io.archiver.testutils.IcebergRows;

import org.apache.avro.generic.GenericRecord;
import org.apache.flink.core.fs.Path;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static io.archiver.format.parquet.TypedAvroColumnsTest.ORDER_V1;
import static io.archiver.format.parquet.TypedAvroColumnsTest.ORDER_V2;
import static io.archiver.format.parquet.TypedAvroColumnsTest.order;
import static io.archiver.format.parquet.TypedAvroColumnsTest.record;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Typed columns in a topic's Iceberg table: the first file with decoded Avro values brings their columns (records,
 * decimals, enums, timestamps, dates, arrays, maps, unions, fixed) into the table's schema, and a file of a newer
 * registry version that adds a field grows the schema in the same commit as the file, read back through the table's
 * name mapping by Iceberg's reader, older rows with the new column empty.
 */
class TypedColumnsInTableTest {

    @TempDir java.nio.file.Path dir;

    @Test
    void aNewRegistryVersionGrowsTheTablesSchemaInTheCommitOfItsFirstFile() throws Exception {
        PayloadFormats formats = new PayloadFormats(PayloadFormat.BYTES, PayloadFormat.AVRO, PayloadFormat.BYTES);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (ArchiveCatalog catalog = ArchiveCatalog.open(new TableSettings(CatalogType.JDBC, "test", "jdbc:sqlite:" + dir.resolve("c.db"),
                dir.resolve("warehouse").toUri().toString(), null, null, null, null, Map.of(), "kafka", "", true,
                SinkLayout.PER_PARTITION, TimePartitioning.NONE, formats))) {
            ArchiveTable table = catalog.table("orders");
            TableFile v1 = write("v1.parquet", List.of(
                    record(0, RegistryPayloads.encode(7, ORDER_V1, order(ORDER_V1, 1, "ada", "12.50", "PAID", null))),
                    record(1, RegistryPayloads.encode(7, ORDER_V1, order(ORDER_V1, 2, "bob", "0.99", "NEW", null)))));
            GenericRecord newer = order(ORDER_V2, 3, "cy", "3.00", "SHIPPED", null);
            newer.put("channel", "app");
            TableFile v2 = write("v2.parquet", List.of(record(2, RegistryPayloads.encode(9, ORDER_V2, newer))));

            table.append(List.of(v1), Map.of(), pool);
            Table iceberg = table.table();
            int v1Schema = iceberg.schema().schemaId();
            assertThat(iceberg.schema().findField("value_decoded.customer")).as("a typed column of version 1").isNotNull();
            assertThat(iceberg.schema().findField("value_decoded.channel")).isNull();

            table.append(List.of(v2), Map.of(), pool);
            iceberg.refresh();
            Snapshot withV2 = iceberg.currentSnapshot();
            assertThat(iceberg.schema().findField("value_decoded.channel")).as("the column version 2 added").isNotNull();
            assertThat(withV2.schemaId()).as("the snapshot of version 2's first file is written with the grown schema")
                    .isEqualTo(iceberg.schema().schemaId()).isNotEqualTo(v1Schema);
            assertThat(iceberg.snapshot(withV2.parentId()).schemaId()).isEqualTo(v1Schema);
            assertThat(iceberg.snapshots()).as("snapshots: one per append, none for the schema").hasSize(2);

            List<String> rows = new ArrayList<>();
            for (Record r : IcebergRows.of(iceberg)) {
                Record decoded = (Record) r.getField("value_decoded");
                rows.add(r.getField("offset") + ":" + decoded.getField("customer") + ":" + decoded.getField("status") + ":"
                        + decoded.getField("amount") + ":" + decoded.getField("channel"));
            }
            assertThat(rows).containsExactlyInAnyOrder("0:ada:PAID:12.50:null", "1:bob:NEW:0.99:null", "2:cy:SHIPPED:3.00:app");
        } finally {
            pool.shutdownNow();
        }
    }

    private TableFile write(String name, List<ArchiveRecord> records) throws Exception {
        java.nio.file.Path local = dir.resolve("archive/topic=orders/partition=0").resolve(name);
        Files.createDirectories(local.getParent());
        EnvelopeParquetBuilder builder = TypedColumnsFixture.builder(PayloadFormat.BYTES, PayloadFormat.AVRO, TypedAvroColumnsTest.REGISTRY);
        Path path = LocalPartFiles.write(local, new EnvelopeParquetWriterFactory(builder), records);
        return new TableFile(path.toString(), Files.size(local), List.of(new FileStats("orders", 0,
                records.get(0).getOffset(), records.get(records.size() - 1).getOffset(), records.size())));
    }
}
