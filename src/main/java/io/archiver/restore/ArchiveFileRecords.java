package io.archiver.restore;

import io.archiver.archive.ArchiveFileReader;
import io.archiver.fs.FileSystemContext;
import io.archiver.fs.PoolThreads;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.core.fs.Path;
import org.apache.flink.util.Collector;
import org.apache.flink.util.TemporaryClassLoaderContext;

import java.util.Arrays;
import java.util.function.Consumer;

/**
 * Reads one read unit of the plan (its archived partition, then the paths of its files, tab-separated: see
 * {@link RestorePlan#readUnits}) and emits its records in offset order, each offset once (the files of a unit
 * with several overlap and are merged in memory), those the selection takes and no earlier run of a restore into
 * the same target wrote ({@link RestoreHistory}); then the partition's ledger entry ({@link RestoreLedger#entry}),
 * which the Kafka sink writes in the same transaction as the unit's records. Keyed by archived partition; how far
 * this run read it and how many records it wrote are state. A unit is read within one call, so a checkpoint
 * barrier comes before or after a whole unit and its entry, never inside it.
 */
final class ArchiveFileRecords extends RichFlatMapFunction<String, ArchiveRecord> {

    private static final long serialVersionUID = 2L;

    private final PayloadFormats formats;
    private final RestoreSelection selection;
    private final RestoreProgress progress;
    private transient ValueState<Long> through;
    private transient ValueState<Long> written;
    private transient ArchiveFileReader reader;
    private transient FileSystemContext fs;

    ArchiveFileRecords(PayloadFormats formats, RestoreSelection selection, RestoreProgress progress) {
        this.formats = formats;
        this.selection = selection;
        this.progress = progress;
    }

    @Override
    public void open(OpenContext openContext) {
        reader = new ArchiveFileReader(formats);
        through = getRuntimeContext().getState(new ValueStateDescriptor<>("read-through", Types.LONG));
        written = getRuntimeContext().getState(new ValueStateDescriptor<>("records-written", Types.LONG));
    }

    @Override
    public void flatMap(String unit, Collector<ArchiveRecord> out) throws Exception {
        String[] parts = unit.split("\t");
        RestoreHistory before = progress.histories().get(parts[0]).begin(selection, progress.startedAt());
        long readBefore = through.value() == null ? before.lastThrough() : through.value();
        long writtenBefore = written.value() == null ? 0 : written.value();
        RestoreHistory history = before.readThrough(readBefore, writtenBefore);
        long[] read = {readBefore, 0};
        Thread thread = Thread.currentThread();
        ClassLoader task = thread.getContextClassLoader();
        Consumer<ArchiveRecord> sink = r -> {
            // the chained Kafka sink runs in the task's class loader, not the file system's (it may load
            // Kafka classes, e.g. when a producer is created on demand)
            ClassLoader reading = thread.getContextClassLoader();
            thread.setContextClassLoader(task);
            try {
                out.collect(r);
            } finally {
                thread.setContextClassLoader(reading);
            }
        };
        Consumer<ArchiveRecord> emit = r -> {
            read[0] = Math.max(read[0], r.getOffset());
            if (selection.takes(r) && !history.written(r)) {
                read[1]++;
                sink.accept(r);
            }
        };
        if (fs == null) {
            fs = FileSystemContext.of(new Path(parts[1]));
        }
        try (TemporaryClassLoaderContext ignored = fs.enter()) {
            UnitRecords.read(reader, partitionOf(parts[0]), Arrays.asList(parts).subList(1, parts.length), emit);
        }
        if (read[0] > readBefore || read[1] > 0) {
            sink.accept(RestoreLedger.entry(progress.ledgerTopic(), progress.keys().get(parts[0]),
                    before.readThrough(read[0], writtenBefore + read[1])));
            through.update(read[0]);
            written.update(writtenBefore + read[1]);
        }
    }

    /** The partition of a unit's {@code <topic>-<partition>}. */
    private static int partitionOf(String topicPartition) {
        return Integer.parseInt(topicPartition.substring(topicPartition.lastIndexOf('-') + 1));
    }

    @Override
    public void close() throws Exception {
        if (fs != null) {
            PoolThreads.forgetJobs(fs);
        }
        super.close();
    }
}
