package io.archiver.format.parquet;

import io.archiver.config.PayloadFormat;
import io.archiver.format.FormatReader;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;
import io.archiver.registry.RegisteredSchema;
import io.archiver.registry.RegistryUnavailableException;
import io.archiver.registry.SchemaSource;
import io.archiver.registry.UndecodablePayload;

import org.apache.flink.core.fs.Path;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/** What the typed-column tests share: a fixed set of schemas in place of the registry, a writer with them, records of topic "orders". */
final class TypedColumnsFixture {

    private TypedColumnsFixture() {}

    /** The schemas of {@code registry} by id; any other id is unknown, as a registry's 404. */
    static SchemaSource source(Map<Integer, RegisteredSchema> registry) {
        return id -> {
            RegisteredSchema schema = registry.get(id);
            if (schema == null) {
                throw new UndecodablePayload("has schema id " + id + ", which the test registry does not have");
            }
            return schema;
        };
    }

    /** A Parquet writer builder whose values are of {@code value}'s format and keys of {@code key}'s, decoded with {@code registry}. */
    static EnvelopeParquetBuilder builder(PayloadFormat key, PayloadFormat value, Map<Integer, RegisteredSchema> registry) {
        EnvelopeParquetBuilder builder = new EnvelopeParquetBuilder(new PayloadFormats(key, value, PayloadFormat.BYTES),
                ParquetCompression.SNAPPY, 3, 8 * 1024 * 1024, 64 * 1024);
        builder.useSchemas(source(registry));
        return builder;
    }

    /** Every record of a written file, read back with the archive's own reader (raw bytes included). */
    static List<ArchiveRecord> readBack(Path file) throws IOException {
        List<ArchiveRecord> read = new ArrayList<>();
        new ParquetRecords().read(file, FormatReader.ALL_PARTITIONS, read::add);
        return read;
    }

    /** A record of topic "orders", partition 0, with a key "k&lt;offset&gt;" and {@code value} (null: a tombstone). */
    /** {@code fixed} with a subject whose latest version is {@code id}, as a registry answers {@code GET /subjects/{subject}/versions/latest}. */
    static SchemaSource withLatest(SchemaSource fixed, String subject, int id) {
        return new SchemaSource() {
            @Override
            public RegisteredSchema schema(int schemaId) throws UndecodablePayload, RegistryUnavailableException {
                return fixed.schema(schemaId);
            }

            @Override
            public OptionalInt latestId(String asked) {
                return asked.equals(subject) ? OptionalInt.of(id) : OptionalInt.empty();
            }
        };
    }

    static ArchiveRecord record(long offset, byte[] value) {
        return new ArchiveRecord("orders", 0, offset, 1_772_859_843_000L, "CreateTime",
                ("k" + offset).getBytes(StandardCharsets.UTF_8), value, new String[0], new byte[0][]);
    }
}
