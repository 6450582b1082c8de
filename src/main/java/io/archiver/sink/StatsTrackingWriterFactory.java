package io.archiver.sink;

import io.archiver.config.TimePartitioning;
import io.archiver.format.BufferingBulkWriter;
import io.archiver.record.ArchiveRecord;

import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataOutputStream;

import java.io.IOException;

/**
 * Wraps the format's writer factory so that every part file reports, when it is finished, which offsets it
 * holds ({@link FileStats}), and while it is open, how much it buffers in memory ({@link OpenFileMemory}). The
 * file sink and {@link ArchiveSinkWriter} share one instance per subtask (the sink is deserialized as one
 * object graph), so the writer finds the statistics in {@link #finishedFiles()}.
 */
final class StatsTrackingWriterFactory implements BulkWriter.Factory<ArchiveRecord> {

    private static final long serialVersionUID = 1L;

    /** How often (in records) an open file's buffered bytes are asked for. */
    private static final int MEMORY_CHECK_RECORDS = 32;

    private final BulkWriter.Factory<ArchiveRecord> format;
    private final TimePartitioning time;
    private final OpenFileMemory memory;
    private transient FinishedFiles finished;

    StatsTrackingWriterFactory(BulkWriter.Factory<ArchiveRecord> format, TimePartitioning time, OpenFileMemory memory) {
        this.format = format;
        this.time = time;
        this.memory = memory;
    }

    OpenFileMemory memory() {
        return memory;
    }

    FinishedFiles finishedFiles() {
        if (finished == null) {
            finished = new FinishedFiles();
        }
        return finished;
    }

    @Override
    public BulkWriter<ArchiveRecord> create(FSDataOutputStream out) throws IOException {
        return new Tracking(format.create(out), finishedFiles());
    }

    private final class Tracking implements BulkWriter<ArchiveRecord> {
        private final BulkWriter<ArchiveRecord> delegate;
        private final FinishedFiles finished;
        private String topic;
        private int partition;
        private String bucket;
        private long first;
        private long last;
        private long records;

        Tracking(BulkWriter<ArchiveRecord> delegate, FinishedFiles finished) {
            this.delegate = delegate;
            this.finished = finished;
        }

        @Override
        public void addElement(ArchiveRecord r) throws IOException {
            delegate.addElement(r);
            if (records == 0) {
                topic = r.getTopic();
                partition = r.getPartition();
                bucket = ArchiveLayout.bucket(topic, partition, r.getTimestamp(), time);
                first = r.getOffset();
            }
            last = r.getOffset();
            records++;
            if (delegate instanceof BufferingBulkWriter && records % MEMORY_CHECK_RECORDS == 1) {
                memory.update(bucket, ((BufferingBulkWriter<ArchiveRecord>) delegate).bufferedBytes());
            }
        }

        @Override
        public void flush() throws IOException {
            delegate.flush();
        }

        @Override
        public void finish() throws IOException {
            delegate.finish();
            if (records > 0) {
                memory.release(bucket);
                finished.add(bucket, new FileStats(topic, partition, first, last, records));
            }
        }
    }
}
