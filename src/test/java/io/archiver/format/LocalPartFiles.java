package io.archiver.format;

import io.archiver.record.ArchiveRecord;

import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

/** Writes part files on the local file system as the sink does: a writer of the factory, its records, finished. */
public final class LocalPartFiles {

    private LocalPartFiles() {}

    public static Path write(java.nio.file.Path file, BulkWriter.Factory<ArchiveRecord> factory, Iterable<ArchiveRecord> records)
            throws Exception {
        Path path = new Path(file.toUri());
        try (FSDataOutputStream out = FileSystem.getLocalFileSystem().create(path, FileSystem.WriteMode.OVERWRITE)) {
            BulkWriter<ArchiveRecord> writer = factory.create(out);
            for (ArchiveRecord r : records) {
                writer.addElement(r);
            }
            writer.finish();
        }
        return path;
    }
}
