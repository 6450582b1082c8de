package io.archiver.format.parquet;

import io.archiver.format.FormatReader.ColumnSearch;
import io.archiver.record.ArchiveRecord;

import org.apache.flink.core.fs.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.filter2.predicate.FilterApi;
import org.apache.parquet.filter2.predicate.FilterPredicate;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

import java.io.IOException;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;

import static io.archiver.record.EnvelopeFields.OFFSET;
import static io.archiver.record.EnvelopeFields.PARTITION;
import static io.archiver.record.EnvelopeFields.TIMESTAMP;
import static io.archiver.record.EnvelopeFields.TOPIC;

/**
 * Finds the records of a Parquet file whose typed column (a field of a decoded payload) holds one of some values given as
 * text: through Parquet's filter of that column (statistics, dictionaries and Bloom filters skip row groups that cannot
 * hold them), reading the positions and that column only.
 */
final class TypedColumnSearch {

    private TypedColumnSearch() {}

    static ColumnSearch read(Path file, ParquetMetadata footer, String column, Collection<String> values, long beforeMillis,
            Consumer<ArchiveRecord> sink) throws IOException {
        MessageType schema = footer.getFileMetaData().getSchema();
        String[] path = column.split("\\.");
        if (!schema.containsField(path[0])) {
            return ColumnSearch.UNTYPED;
        }
        if (!schema.containsPath(path)) {
            return ColumnSearch.ABSENT;
        }
        ColumnDescriptor leaf = schema.getColumnDescription(path);
        if (leaf.getMaxRepetitionLevel() > 0) {
            throw new IllegalArgumentException(column + " is inside a list: --where takes a field of a record, not of a list's elements");
        }
        FilterPredicate match = match(column, leaf, values);
        if (match == null) {
            return ColumnSearch.SEARCHED;
        }
        if (beforeMillis != Long.MAX_VALUE) {
            match = FilterApi.and(match, FilterApi.lt(FilterApi.longColumn(TIMESTAMP), beforeMillis));
        }
        Configuration conf = new Configuration(false);
        conf.set(ReadSupport.PARQUET_READ_SCHEMA, projection(schema, path).toString());
        try (ParquetReader<Group> reader = ParquetRecords.rows(file, FilterCompat.get(match), conf, new GroupReadSupport())) {
            for (Group g = reader.read(); g != null; g = reader.read()) {
                sink.accept(new ArchiveRecord(g.getString(TOPIC, 0), g.getInteger(PARTITION, 0), g.getLong(OFFSET, 0),
                        g.getLong(TIMESTAMP, 0), "CreateTime", null, null, new String[0], new byte[0][]));
            }
        }
        return ColumnSearch.SEARCHED;
    }

    /** The predicate "column is one of values" for the column's type; null when no value can be of it (nothing matches). */
    private static FilterPredicate match(String column, ColumnDescriptor leaf, Collection<String> values) {
        LogicalTypeAnnotation logical = leaf.getPrimitiveType().getLogicalTypeAnnotation();
        switch (leaf.getPrimitiveType().getPrimitiveTypeName()) {
            case INT32:
                return in(values, Integer::valueOf, set -> FilterApi.in(FilterApi.intColumn(column), set), logical, column);
            case INT64:
                return in(values, Long::valueOf, set -> FilterApi.in(FilterApi.longColumn(column), set), logical, column);
            case FLOAT:
                return in(values, Float::valueOf, set -> FilterApi.in(FilterApi.floatColumn(column), set), logical, column);
            case DOUBLE:
                return in(values, Double::valueOf, set -> FilterApi.in(FilterApi.doubleColumn(column), set), logical, column);
            case BOOLEAN:
                return in(values, TypedColumnSearch::bool, set -> FilterApi.in(FilterApi.booleanColumn(column), set), logical, column);
            case BINARY:
                if (logical == null || logical instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation
                        || logical instanceof LogicalTypeAnnotation.EnumLogicalTypeAnnotation) {
                    return in(values, Binary::fromString, set -> FilterApi.in(FilterApi.binaryColumn(column), set), null, column);
                }
                throw unsupported(column, logical.toString());
            default:
                throw unsupported(column, leaf.getPrimitiveType().getPrimitiveTypeName().toString());
        }
    }

    private static <T extends Comparable<T>> FilterPredicate in(Collection<String> values, Function<String, T> parse,
            Function<Set<T>, FilterPredicate> predicate, LogicalTypeAnnotation logical, String column) {
        if (logical instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation) {
            throw unsupported(column, logical.toString());
        }
        Set<T> parsed = new HashSet<>();
        for (String v : values) {
            try {
                parsed.add(parse.apply(v));
            } catch (IllegalArgumentException e) {
                // a value not of the column's type: no record holds it
            }
        }
        return parsed.isEmpty() ? null : predicate.apply(parsed);
    }

    private static Boolean bool(String value) {
        if (value.equals("true") || value.equals("false")) {
            return Boolean.valueOf(value);
        }
        throw new IllegalArgumentException(value);
    }

    private static IllegalArgumentException unsupported(String column, String type) {
        return new IllegalArgumentException(column + " is of type " + type + ": --where matches text, numbers and booleans");
    }

    /** The positions' columns and {@code path}'s column alone (its groups holding that one field). */
    private static MessageType projection(MessageType schema, String[] path) {
        return new MessageType(schema.getName(), List.of(schema.getType(TOPIC), schema.getType(PARTITION), schema.getType(OFFSET),
                schema.getType(TIMESTAMP), pruned(schema.getType(path[0]), path, 1)));
    }

    private static Type pruned(Type type, String[] path, int depth) {
        if (depth == path.length) {
            return type;
        }
        GroupType group = type.asGroupType();
        return group.withNewFields(pruned(group.getType(path[depth]), path, depth + 1));
    }
}
