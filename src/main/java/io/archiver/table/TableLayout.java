package io.archiver.table;

import io.archiver.archive.ArchiveLayout;
import io.archiver.config.SinkLayout;
import io.archiver.config.TimePartitioning;
import io.archiver.format.parquet.ParquetEnvelope;
import io.archiver.record.EnvelopeFields;
import io.archiver.record.PayloadFormats;

import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.mapping.MappingUtil;
import org.apache.iceberg.mapping.NameMappingParser;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.parquet.schema.MessageType;

import java.util.List;
import java.util.Optional;

/**
 * How a topic's table mirrors the archive's folders: its schema is the files' Parquet schema (the envelope, then
 * the typed columns as registry versions add them), read through a name mapping since the archive's files carry
 * no field ids; its partition spec is what the folders encode, so that engines prune through the catalog as
 * through the folders: {@code partition} (per-partition layout), {@code day(timestamp)} or {@code hour(timestamp)}
 * (as {@code sink.time-partitioning} says; the folders are the record time in UTC as Iceberg's transforms are).
 */
final class TableLayout {

    static final String PARTITION = EnvelopeFields.PARTITION;
    static final String TIMESTAMP = EnvelopeFields.TIMESTAMP;

    private TableLayout() {}

    /** The schema of a new table: the envelope of {@code formats}, before any typed column. */
    static Schema envelope(PayloadFormats formats) {
        return ParquetSchemaUtil.convert(ParquetEnvelope.schema(formats));
    }

    /** The Iceberg schema of a file's Parquet schema (ids are the table's business: columns are matched by name). */
    static Schema of(MessageType parquet) {
        return ParquetSchemaUtil.convert(parquet);
    }

    /** The spec of files written with {@code layout} and {@code time}. */
    static PartitionSpec spec(Schema schema, SinkLayout layout, TimePartitioning time) {
        PartitionSpec.Builder spec = PartitionSpec.builderFor(schema);
        if (layout == SinkLayout.PER_PARTITION) {
            spec.identity(PARTITION);
        }
        switch (time) {
            case DAY -> spec.day(TIMESTAMP);
            case HOUR -> spec.hour(TIMESTAMP);
            case NONE -> { }
        }
        return spec.build();
    }

    /** Whether two specs partition by the same columns the same way (ids and names aside). */
    static boolean samePartitioning(PartitionSpec a, PartitionSpec b) {
        return describe(a).equals(describe(b));
    }

    private static List<String> describe(PartitionSpec spec) {
        return spec.fields().stream()
                .map(f -> spec.schema().findColumnName(f.sourceId()) + ":" + f.transform())
                .sorted().toList();
    }

    /** The table property that maps the files' column names to the table's field ids. */
    static String nameMapping(Schema schema) {
        return NameMappingParser.toJson(MappingUtil.create(schema));
    }

    /**
     * The partition of {@code file} under one of {@code table}'s specs that its folders encode whole (the current one
     * first: an archive's layout may have changed at a restart), or empty when none fits.
     */
    static Optional<Partitioned> partition(Table table, String path, int partition) {
        ArchiveLayout.TimeFolder folder = ArchiveLayout.timeFolderOf(path);
        boolean perPartition = ArchiveLayout.partitionOf(path).isPresent();
        Optional<Partitioned> current = partition(table.spec(), folder, perPartition, partition);
        if (current.isPresent()) {
            return current;
        }
        for (PartitionSpec spec : table.specs().values()) {
            Optional<Partitioned> other = partition(spec, folder, perPartition, partition);
            if (other.isPresent()) {
                return other;
            }
        }
        return Optional.empty();
    }

    private static Optional<Partitioned> partition(
            PartitionSpec spec, ArchiveLayout.TimeFolder folder, boolean perPartition, int partition) {
        PartitionData data = new PartitionData(spec.partitionType());
        List<PartitionField> fields = spec.fields();
        for (int i = 0; i < fields.size(); i++) {
            PartitionField field = fields.get(i);
            String transform = field.transform().toString();
            String source = spec.schema().findColumnName(field.sourceId());
            if (source.equals(PARTITION) && transform.equals("identity") && perPartition) {
                data.set(i, partition);
            } else if (source.equals(TIMESTAMP) && transform.equals("day") && folder.time() == TimePartitioning.DAY) {
                data.set(i, (int) Math.floorDiv(folder.start(), 86_400_000L));
            } else if (source.equals(TIMESTAMP) && transform.equals("hour") && folder.time() == TimePartitioning.HOUR) {
                data.set(i, (int) Math.floorDiv(folder.start(), 3_600_000L));
            } else if (source.equals(TIMESTAMP) && transform.equals("day") && folder.time() == TimePartitioning.HOUR) {
                data.set(i, (int) Math.floorDiv(folder.start(), 86_400_000L));
            } else {
                return Optional.empty();
            }
        }
        return Optional.of(new Partitioned(spec, data));
    }

    /** A file's spec and partition under it. */
    record Partitioned(PartitionSpec spec, PartitionData data) {}
}
