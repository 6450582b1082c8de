package io.archiver.sink.files;

import io.archiver.format.SelectiveBulkWriter;
import io.archiver.record.ArchiveRecord;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * A sink subtask's open files whose schema was fixed by their first records ({@link SelectiveBulkWriter}), by
 * bucket, so the rolling policy closes one before a record it cannot take. Never part of the job graph.
 */
final class SchemaBoundFiles {

    private final Map<String, SelectiveBulkWriter<ArchiveRecord>> open = new HashMap<>();

    void opened(String bucket, SelectiveBulkWriter<ArchiveRecord> writer) {
        open.put(bucket, writer);
    }

    void closed(String bucket) {
        open.remove(bucket);
    }

    /** False when the open file of {@code bucket} cannot take {@code record}: it is to be closed first. */
    boolean accepts(String bucket, ArchiveRecord record) throws IOException {
        SelectiveBulkWriter<ArchiveRecord> writer = open.get(bucket);
        return writer == null || writer.accepts(record);
    }
}
