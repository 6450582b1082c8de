package io.archiver.restore;

import io.archiver.format.ArchiveFileReader;
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
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Reads one read unit of the plan (its archived partition, then the paths of its files, tab-separated: see
 * {@link RestorePlan#readUnits}) and emits its records in offset order, each offset once (the files of a unit
 * with several overlap and are merged in memory), those of the selected offset range and time window only, leaving out the first records
 * of each partition that a restore started again without state finds already written ({@link
 * AlreadyRestored}). Keyed by archived partition; how many records of it were passed on so far is state. A
 * unit is read within one call, so a checkpoint barrier comes before or after a whole unit, never inside it.
 */
final class ArchiveFileRecords extends RichFlatMapFunction<String, ArchiveRecord> {

    private static final long serialVersionUID = 1L;

    private final PayloadFormats formats;
    private final RestoreSelection selection;
    /** Per archived partition ({@code topic-partition}), records already in the target before this job. */
    private final HashMap<String, Long> alreadyWritten;
    private transient ValueState<Long> passed;
    private transient ArchiveFileReader reader;
    private transient FileSystemContext fs;

    ArchiveFileRecords(PayloadFormats formats, RestoreSelection selection, Map<String, Long> alreadyWritten) {
        this.formats = formats;
        this.selection = selection;
        this.alreadyWritten = new HashMap<>(alreadyWritten);
    }

    @Override
    public void open(OpenContext openContext) {
        reader = new ArchiveFileReader(formats);
        passed = getRuntimeContext().getState(new ValueStateDescriptor<>("records-passed", Types.LONG));
    }

    @Override
    public void flatMap(String unit, Collector<ArchiveRecord> out) throws Exception {
        String[] parts = unit.split("\t");
        long skip = alreadyWritten.getOrDefault(parts[0], 0L);
        long[] seen = {passed.value() == null ? 0 : passed.value()};
        Thread thread = Thread.currentThread();
        ClassLoader task = thread.getContextClassLoader();
        Consumer<ArchiveRecord> emit = r -> {
            if (selection.takes(r) && ++seen[0] > skip) {
                // the chained Kafka sink runs in the task's class loader, not the file system's (it may load
                // Kafka classes, e.g. when a producer is created on demand)
                ClassLoader reading = thread.getContextClassLoader();
                thread.setContextClassLoader(task);
                try {
                    out.collect(r);
                } finally {
                    thread.setContextClassLoader(reading);
                }
            }
        };
        if (fs == null) {
            fs = FileSystemContext.of(new Path(parts[1]));
        }
        try (TemporaryClassLoaderContext ignored = fs.enter()) {
            UnitRecords.read(reader, partitionOf(parts[0]), Arrays.asList(parts).subList(1, parts.length), emit);
        }
        passed.update(seen[0]);
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
