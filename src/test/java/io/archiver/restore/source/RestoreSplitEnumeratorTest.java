package io.archiver.restore.source;

import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.metrics.groups.SplitEnumeratorMetricGroup;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The restore's partitions go to the readers one at a time as they ask (a reader with a long partition does not
 * hold back the others' work), a reader asking when none is left is told its input ended, and a partition a
 * failed reader had goes out again first.
 */
class RestoreSplitEnumeratorTest {

    @Test
    void partitionsGoOneAtATimeToWhoeverAsksAndAReaderAskingWhenNoneIsLeftIsToldItsInputEnded() {
        Context context = new Context(2);
        RestoreSplitEnumerator enumerator = new RestoreSplitEnumerator(context,
                List.of(split("t-0"), split("t-1"), split("t-2")));
        enumerator.start();

        enumerator.handleSplitRequest(0, null);
        enumerator.handleSplitRequest(1, null);
        enumerator.handleSplitRequest(1, null);
        assertThat(context.assigned).containsExactly("t-0 to 0", "t-1 to 1", "t-2 to 1");
        assertThat(enumerator.snapshotState(1)).isEmpty();

        enumerator.handleSplitRequest(0, null);
        assertThat(context.noMoreSplits).as("reader 1 still reads t-2").containsExactly(0);

        enumerator.handleSplitRequest(1, null);
        assertThat(context.noMoreSplits).containsExactly(0, 1);
    }

    @Test
    void partitionsAFailedReaderHadAreHandedOutAgainFirstAndKeptInTheCheckpointUntilThen() {
        Context context = new Context(1);
        RestoreSplitEnumerator enumerator = new RestoreSplitEnumerator(context, List.of(split("t-0"), split("t-1")));
        enumerator.start();
        enumerator.handleSplitRequest(0, null);

        RestoreSplit halfRead = split("t-0").read(41L, 42);
        enumerator.addSplitsBack(List.of(halfRead), 0);
        assertThat(enumerator.snapshotState(2)).containsExactly(halfRead, split("t-1"));

        enumerator.handleSplitRequest(0, null);
        assertThat(context.assigned).containsExactly("t-0 to 0", "t-0 to 0");
        assertThat(context.splits.get(1)).isEqualTo(halfRead);
    }

    private static RestoreSplit split(String partition) {
        return RestoreSplit.unread(partition, List.of(List.of("s3://b/a/" + partition + "/f1"), List.of("s3://b/a/" + partition + "/f2")));
    }

    /** What the enumerator tells the readers and the checkpoint coordinator. */
    private static final class Context implements SplitEnumeratorContext<RestoreSplit> {
        final int parallelism;
        final List<String> assigned = new ArrayList<>();
        final List<RestoreSplit> splits = new ArrayList<>();
        final List<Integer> noMoreSplits = new ArrayList<>();

        Context(int parallelism) {
            this.parallelism = parallelism;
        }

        @Override
        public void assignSplits(SplitsAssignment<RestoreSplit> assignment) {
            assignment.assignment().forEach((reader, given) -> given.forEach(s -> {
                assigned.add(s.partition() + " to " + reader);
                splits.add(s);
            }));
        }

        @Override
        public void signalNoMoreSplits(int subtask) {
            noMoreSplits.add(subtask);
        }

        @Override
        public int currentParallelism() {
            return parallelism;
        }

        @Override
        public SplitEnumeratorMetricGroup metricGroup() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void sendEventToSourceReader(int subtaskId, SourceEvent event) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Map<Integer, ReaderInfo> registeredReaders() {
            throw new UnsupportedOperationException();
        }

        @Override
        public <T> void callAsync(Callable<T> callable, BiConsumer<T, Throwable> handler) {
            throw new UnsupportedOperationException();
        }

        @Override
        public <T> void callAsync(Callable<T> callable, BiConsumer<T, Throwable> handler, long initialDelay, long period) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void runInCoordinatorThread(Runnable runnable) {
            throw new UnsupportedOperationException();
        }
    }
}
