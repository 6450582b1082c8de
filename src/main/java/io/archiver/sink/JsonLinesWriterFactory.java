package io.archiver.sink;

import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;

import com.fasterxml.jackson.core.JsonFactory;
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataOutputStream;

import java.io.IOException;

/** Creates a {@link JsonLinesWriter} for every part file; ships only the formats and the compression flag. */
public final class JsonLinesWriterFactory implements BulkWriter.Factory<ArchiveRecord> {

    private static final long serialVersionUID = 1L;

    private final PayloadFormats formats;
    private final boolean gzip;
    private transient JsonFactory json;

    public JsonLinesWriterFactory(PayloadFormats formats, boolean gzip) {
        this.formats = formats;
        this.gzip = gzip;
    }

    @Override
    public BulkWriter<ArchiveRecord> create(FSDataOutputStream out) throws IOException {
        if (json == null) {
            json = new JsonFactory();
        }
        return new JsonLinesWriter(json, out, formats, gzip);
    }
}
