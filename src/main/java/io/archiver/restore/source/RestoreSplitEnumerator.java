package io.archiver.restore.source;

import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;

import javax.annotation.Nullable;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.List;

/**
 * Hands the restore's partitions ({@link RestoreSplit}) to the readers one at a time, as each asks for its next,
 * so the readers share the work whatever the partitions' sizes (partitions spread by hash left one of two readers
 * six of the benchmark's eight); a reader that asks when none is left is told its input has ended.
 */
final class RestoreSplitEnumerator implements SplitEnumerator<RestoreSplit, Collection<RestoreSplit>> {

    private final SplitEnumeratorContext<RestoreSplit> context;
    private final Deque<RestoreSplit> unassigned;

    RestoreSplitEnumerator(SplitEnumeratorContext<RestoreSplit> context, Collection<RestoreSplit> unassigned) {
        this.context = context;
        this.unassigned = new ArrayDeque<>(unassigned);
    }

    @Override
    public void start() {}

    @Override
    public void handleSplitRequest(int subtaskId, @Nullable String requesterHostname) {
        RestoreSplit next = unassigned.poll();
        if (next != null) {
            context.assignSplit(next, subtaskId);
            return;
        }
        context.signalNoMoreSplits(subtaskId);
    }

    /** Partitions a failed reader had taken since the last checkpoint: read again, from where that checkpoint says. */
    @Override
    public void addSplitsBack(List<RestoreSplit> splits, int subtaskId) {
        for (int i = splits.size() - 1; i >= 0; i--) {
            unassigned.addFirst(splits.get(i));
        }
    }

    @Override
    public void addReader(int subtaskId) {
        // a reader asks for its first partition itself
    }

    @Override
    public Collection<RestoreSplit> snapshotState(long checkpointId) {
        return new ArrayList<>(unassigned);
    }

    @Override
    public void close() {}
}
