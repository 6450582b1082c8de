package io.archiver.sink.files;

import io.archiver.format.BufferingBulkWriter;
import io.archiver.format.SelectiveBulkWriter;
import io.archiver.record.ArchiveRecord;

import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataOutputStream;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Wraps the format's writer factory of one sink subtask so that every part file reports, when it is finished,
 * which offsets it holds ({@link FinishedFiles}), and while it is open, how much it buffers in memory ({@link
 * OpenFileMemory}) and whether its schema takes a record ({@link SchemaBoundFiles}). Created per subtask by {@link SubtaskPartFiles}, never part of the job graph.
 */
final class StatsTrackingWriterFactory implements BulkWriter.Factory<ArchiveRecord> {

    private static final long serialVersionUID = 1L;

    /** How often (in records) an open file's buffered bytes are asked for. */
    private static final int MEMORY_CHECK_RECORDS = 32;

    private final BulkWriter.Factory<ArchiveRecord> format;
    private final ArchiveBucketAssigner buckets;
    private final transient FinishedFiles finished;
    private final transient OpenFileMemory memory;
    private final transient SchemaBoundFiles schemaBound;

    StatsTrackingWriterFactory(
            BulkWriter.Factory<ArchiveRecord> format, ArchiveBucketAssigner buckets, FinishedFiles finished, OpenFileMemory memory,
            SchemaBoundFiles schemaBound) {
        this.format = format;
        this.buckets = buckets;
        this.finished = finished;
        this.memory = memory;
        this.schemaBound = schemaBound;
    }

    @Override
    public BulkWriter<ArchiveRecord> create(FSDataOutputStream out) throws IOException {
        return new Tracking(format.create(out));
    }

    private final class Tracking implements BulkWriter<ArchiveRecord> {
        private final BulkWriter<ArchiveRecord> delegate;
        private String topic;
        private String bucket;
        private long records;
        /** Per partition: first offset, last offset, records, the last record's leader epoch. */
        private final Map<Integer, long[]> partitions = new TreeMap<>();
        /** The range of the partition of the last record (records come in per-partition batches). */
        private long[] current;
        private int currentPartition = -1;

        Tracking(BulkWriter<ArchiveRecord> delegate) {
            this.delegate = delegate;
        }

        @Override
        public void addElement(ArchiveRecord r) throws IOException {
            delegate.addElement(r);
            if (records == 0) {
                topic = r.getTopic();
                bucket = buckets.bucketOf(r);
                if (delegate instanceof SelectiveBulkWriter) {
                    schemaBound.opened(bucket, (SelectiveBulkWriter<ArchiveRecord>) delegate);
                }
            }
            if (r.getPartition() != currentPartition) {
                currentPartition = r.getPartition();
                current = partitions.computeIfAbsent(currentPartition, p -> new long[] {r.getOffset(), r.getOffset(), 0, -1});
            }
            current[1] = r.getOffset();
            current[2]++;
            current[3] = r.getLeaderEpoch();
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
                schemaBound.closed(bucket);
                List<FileStats> stats = new ArrayList<>(partitions.size());
                partitions.forEach((p, range) -> stats.add(new FileStats(topic, p, range[0], range[1], range[2], (int) range[3])));
                finished.add(bucket, stats);
            }
        }
    }
}
