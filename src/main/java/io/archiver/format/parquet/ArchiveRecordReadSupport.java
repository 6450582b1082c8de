package io.archiver.format.parquet;

import io.archiver.record.ArchiveRecord;

import org.apache.avro.Schema;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.api.InitContext;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.io.api.RecordMaterializer;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.archiver.record.EnvelopeFields.*;

/**
 * Reads whole records of an archive file straight from its columns ({@link EnvelopeRecordConverter}). A file whose
 * payloads are all in its key and value columns is read through the envelope's columns alone (its typed columns are
 * not read at all). A file that may have left payloads out for its typed columns to rebuild
 * ({@code sink.parquet.decoded-payload-bytes: rebuild}, or written before files said which) is read with its schema
 * ids and typed columns too, and a missing payload is rebuilt from them with the Avro reader schema in the file's
 * footer ({@link RebuiltPayloads}).
 */
final class ArchiveRecordReadSupport extends ReadSupport<ArchiveRecord> {

    private static final List<String> ENVELOPE = List.of(TOPIC, PARTITION, OFFSET, TIMESTAMP, TIMESTAMP_TYPE, KEY, VALUE, HEADERS);
    private static final List<String> TYPED = List.of(KEY_SCHEMA_ID, KEY_DECODED, VALUE_SCHEMA_ID, VALUE_DECODED);
    /** The envelope's fields but value and headers: where each record is, and its key as stored. */
    private static final List<String> POSITIONS_AND_KEYS = List.of(TOPIC, PARTITION, OFFSET, TIMESTAMP, TIMESTAMP_TYPE, KEY);

    private final boolean positionsAndKeys;

    /** Reads whole records. */
    ArchiveRecordReadSupport() {
        this(false);
    }

    private ArchiveRecordReadSupport(boolean positionsAndKeys) {
        this.positionsAndKeys = positionsAndKeys;
    }

    /**
     * Reads records without value and headers (their column chunks are not read), keys as the key column holds them
     * (null where a file left a key out for its typed columns to rebuild).
     */
    static ArchiveRecordReadSupport positionsAndKeys() {
        return new ArchiveRecordReadSupport(true);
    }

    @Override
    public ReadContext init(InitContext context) {
        MessageType file = context.getFileSchema();
        List<Type> fields = new ArrayList<>(ENVELOPE.size() + TYPED.size());
        for (String name : positionsAndKeys ? POSITIONS_AND_KEYS : ENVELOPE) {
            fields.add(file.getType(name));
        }
        if (!positionsAndKeys && rebuilding(context.getMergedKeyValueMetaData()) != null) {
            for (String name : TYPED) {
                if (file.containsField(name)) {
                    fields.add(file.getType(name));
                }
            }
        }
        return new ReadContext(new MessageType(file.getName(), fields));
    }

    @Override
    public RecordMaterializer<ArchiveRecord> prepareForRead(Configuration configuration, Map<String, String> keyValueMetaData,
            MessageType fileSchema, ReadContext readContext) {
        MessageType requested = readContext.getRequestedSchema();
        ReaderSchemas schemas = positionsAndKeys ? null : rebuilding(keyValueMetaData);
        if (schemas == null) {
            return new EnvelopeRecordConverter(requested);
        }
        List<Type> typed = requested.getFields().stream().filter(t -> TYPED.contains(t.getName())).toList();
        return new EnvelopeRecordConverter(requested, new RebuiltPayloads(new MessageType(requested.getName(), typed), schemas.key(), schemas.value()));
    }

    /** The file's Avro reader schemas when it may have left payloads out for them to rebuild, else null. */
    private static ReaderSchemas rebuilding(Map<String, String> footer) {
        if (EnvelopeWriteSupport.PAYLOADS_KEPT.equals(footer.get(EnvelopeWriteSupport.PAYLOAD_BYTES_KEY))) {
            return null;
        }
        Schema key = avro(footer.get(EnvelopeWriteSupport.KEY_SCHEMA_KEY));
        Schema value = avro(footer.get(EnvelopeWriteSupport.VALUE_SCHEMA_KEY));
        return key == null && value == null ? null : new ReaderSchemas(key, value);
    }

    private record ReaderSchemas(Schema key, Schema value) {}

    private static Schema avro(String text) {
        return text == null ? null : new Schema.Parser().parse(text);
    }
}
