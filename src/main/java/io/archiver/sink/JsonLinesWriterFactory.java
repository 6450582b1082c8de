package io.archiver.sink;

import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;

import com.fasterxml.jackson.core.JsonFactory;
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataOutputStream;

import java.io.IOException;

/** Creates a {@link JsonLinesWriter} for every part file; ships only the formats and the gzip level. */
public final class JsonLinesWriterFactory implements BulkWriter.Factory<ArchiveRecord> {

    private static final long serialVersionUID = 1L;

    private final PayloadFormats formats;
    /** Deflate level, or null for uncompressed files. */
    private final Integer gzipLevel;
    private transient JsonFactory json;

    public JsonLinesWriterFactory(PayloadFormats formats, Integer gzipLevel) {
        this.formats = formats;
        this.gzipLevel = gzipLevel;
    }

    @Override
    public BulkWriter<ArchiveRecord> create(FSDataOutputStream out) throws IOException {
        if (json == null) {
            json = new JsonFactory();
        }
        return new JsonLinesWriter(json, out, formats, gzipLevel);
    }
}
