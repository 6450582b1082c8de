package io.archiver.format.jsonl;

import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;
import io.archiver.registry.RegistryPayloads;
import io.archiver.registry.SchemaRegistryClient;
import io.archiver.registry.SchemaSource;

import com.fasterxml.jackson.core.JsonFactory;
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataOutputStream;

import java.io.IOException;

/** Creates a {@link JsonLinesWriter} for every part file; ships only the formats, the compression and its level. */
public final class JsonLinesWriterFactory implements BulkWriter.Factory<ArchiveRecord> {

    private static final long serialVersionUID = 1L;

    private final PayloadFormats formats;
    private final JsonCompression compression;
    /** The compression's level (gzip's deflate level or zstd's); unused for uncompressed files. */
    private final int level;
    private transient JsonFactory json;
    private transient RegistryPayloads payloads;

    public JsonLinesWriterFactory(PayloadFormats formats, JsonCompression compression, int level) {
        this.formats = formats;
        this.compression = compression;
        this.level = level;
    }

    /** Schemas from {@code source} instead of the registry (tests of the decoded values without a registry). */
    void useSchemas(SchemaSource source) {
        json = new JsonFactory();
        payloads = new RegistryPayloads(source);
    }

    @Override
    public BulkWriter<ArchiveRecord> create(FSDataOutputStream out) throws IOException {
        if (json == null) {
            json = new JsonFactory();
            payloads = formats.decoded() ? new RegistryPayloads(SchemaRegistryClient.shared(formats.registry())) : null;
        }
        return new JsonLinesWriter(json, out, formats, payloads, compression, level);
    }
}
