package io.archiver.restore.source;

import io.archiver.restore.plan.RestoreSelection;
import io.archiver.restore.plan.UnitRecords;
import io.archiver.restore.ledger.RestoreProgress;
import io.archiver.restore.ledger.RestoreLedger;
import io.archiver.restore.ledger.RestoreHistory;
import io.archiver.archive.ArchiveFileReader;
import io.archiver.fs.FileSystemContext;
import io.archiver.fs.PoolThreads;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;

import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.core.fs.Path;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.util.TemporaryClassLoaderContext;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Reads the partitions it is given ({@link RestoreSplit}), one read unit per call, and emits the unit's records in
 * offset order, each offset once (the files of a unit with several overlap and are merged in memory), those the
 * selection takes and no earlier run of a restore into the same target wrote ({@link RestoreHistory}); then the
 * partition's ledger entry ({@link RestoreLedger#entry}), which the chained Kafka sink writes in the same
 * transaction as the unit's records. A checkpoint comes between two calls, so before or after a whole unit and its
 * entry, never inside it; the partition's split then says which unit is next and how far this run has read.
 */
final class RestoreSourceReader implements SourceReader<ArchiveRecord, RestoreSplit> {

    private final SourceReaderContext context;
    private final ArchiveFileReader reader;
    private final RestoreSelection selection;
    private final RestoreProgress progress;
    private final Deque<RestoreSplit> splits = new ArrayDeque<>();
    private CompletableFuture<Void> available = new CompletableFuture<>();
    private boolean asked;
    private boolean noMoreSplits;
    private FileSystemContext fs;

    RestoreSourceReader(SourceReaderContext context, PayloadFormats formats, RestoreSelection selection, RestoreProgress progress) {
        this.context = context;
        this.reader = new ArchiveFileReader(formats);
        this.selection = selection;
        this.progress = progress;
    }

    @Override
    public void start() {
        // partitions restored from a checkpoint come before the start: a reader holding one asks when it is read
        if (splits.isEmpty()) {
            askForMore();
        }
    }

    @Override
    public InputStatus pollNext(ReaderOutput<ArchiveRecord> output) throws Exception {
        RestoreSplit split = splits.peek();
        if (split == null) {
            if (noMoreSplits) {
                return InputStatus.END_OF_INPUT;
            }
            askForMore();
            available = new CompletableFuture<>();
            return InputStatus.NOTHING_AVAILABLE;
        }
        splits.poll();
        RestoreSplit after = readUnit(split, output);
        if (!after.finished()) {
            splits.addFirst(after);
        }
        return InputStatus.MORE_AVAILABLE;
    }

    /** Reads {@code split}'s next unit into {@code output}; returns the split after it. */
    private RestoreSplit readUnit(RestoreSplit split, ReaderOutput<ArchiveRecord> output) throws Exception {
        List<String> paths = split.units().get(split.next());
        RestoreHistory before = progress.histories().get(split.partition()).begin(selection, progress.startedAt());
        long readBefore = split.through() == null ? before.lastThrough() : split.through();
        RestoreHistory history = before.readThrough(readBefore, split.written());
        long[] read = {readBefore, 0};
        Thread thread = Thread.currentThread();
        ClassLoader task = thread.getContextClassLoader();
        Consumer<ArchiveRecord> sink = r -> {
            // the chained Kafka sink runs in the task's class loader, not the file system's (it may load
            // Kafka classes, e.g. when a producer is created on demand)
            ClassLoader reading = thread.getContextClassLoader();
            thread.setContextClassLoader(task);
            try {
                output.collect(r);
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
            fs = FileSystemContext.of(new Path(paths.get(0)));
        }
        try (TemporaryClassLoaderContext ignored = fs.enter()) {
            UnitRecords.read(reader, partitionOf(split.partition()), paths, emit);
        }
        if (read[0] > readBefore || read[1] > 0) {
            sink.accept(RestoreLedger.entry(progress.ledgerTopic(), progress.keys().get(split.partition()),
                    before.readThrough(read[0], split.written() + read[1])));
            return split.read(read[0], split.written() + read[1]);
        }
        return split.read(split.through(), split.written());
    }

    /** The partition of a split's {@code <topic>-<partition>}. */
    private static int partitionOf(String topicPartition) {
        return Integer.parseInt(topicPartition.substring(topicPartition.lastIndexOf('-') + 1));
    }

    private void askForMore() {
        if (!asked && !noMoreSplits) {
            asked = true;
            context.sendSplitRequest();
        }
    }

    @Override
    public void addSplits(List<RestoreSplit> added) {
        splits.addAll(added);
        asked = false;
        available.complete(null);
    }

    @Override
    public void notifyNoMoreSplits() {
        noMoreSplits = true;
        available.complete(null);
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
        return available;
    }

    @Override
    public List<RestoreSplit> snapshotState(long checkpointId) {
        return new ArrayList<>(splits);
    }

    @Override
    public void close() {
        if (fs != null) {
            PoolThreads.forgetJobs(fs);
        }
    }
}
