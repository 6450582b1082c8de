package io.archiver.format;

import org.apache.flink.api.common.serialization.BulkWriter;

import java.io.IOException;

/**
 * A writer of a file whose schema was fixed by its first records and that may not hold every later record (typed
 * columns of another schema version): the sink closes the file and opens another before such a record.
 */
public interface SelectiveBulkWriter<T> extends BulkWriter<T> {

    /** True when {@code element} can be added to this open file. */
    boolean accepts(T element) throws IOException;
}
