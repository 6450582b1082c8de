package io.archiver.testutils;

import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.mapping.NameMappingParser;
import org.apache.iceberg.parquet.Parquet;

import java.util.ArrayList;
import java.util.List;

/**
 * The rows of a table's current snapshot, read by Iceberg's own Parquet reader (iceberg-parquet's generic records)
 * through the table's name mapping, as Spark, Trino and PyIceberg read files without field ids. (iceberg-data's
 * {@code IcebergGenerics} in 1.12 does not apply a name mapping, so it cannot read such files.)
 */
public final class IcebergRows {

    private IcebergRows() {}

    public static List<Record> of(Table table) throws Exception {
        Schema schema = table.schema();
        String mappingJson = table.properties().get(TableProperties.DEFAULT_NAME_MAPPING);
        NameMapping mapping = mappingJson == null ? null : NameMappingParser.fromJson(mappingJson);
        List<Record> rows = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            for (FileScanTask task : tasks) {
                Parquet.ReadBuilder read = Parquet.read(table.io().newInputFile(task.file().location()))
                        .project(schema)
                        .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema));
                if (mapping != null) {
                    read.withNameMapping(mapping);
                }
                try (CloseableIterable<Record> records = read.build()) {
                    records.forEach(r -> rows.add(r.copy()));
                }
            }
        }
        return rows;
    }
}
