package io.archiver.format;

import org.apache.flink.api.common.serialization.BulkWriter;

/** A part file writer that holds data in memory before it writes it to the file's stream. */
public interface BufferingBulkWriter<T> extends BulkWriter<T> {

    /** Bytes held in memory and not yet written to the stream. */
    long bufferedBytes();
}
