package io.archiver.testutils;

import io.archiver.config.SinkLayout;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;

/**
 * One {@link FaultScenario} per sink layout, started together and closed together: a fault class hits a job of each
 * layout with one fault, and each archive is checked against its own topic's read_committed truth.
 */
public final class LayoutScenarios implements AutoCloseable, Iterable<FaultScenario> {

    /** Starts the scenario of one layout. */
    public interface Start {
        FaultScenario start(SinkLayout layout) throws Exception;
    }

    private final List<FaultScenario> scenarios;

    private LayoutScenarios(List<FaultScenario> scenarios) {
        this.scenarios = scenarios;
    }

    /** A scenario of every layout, started by {@code start}; those started are closed again if one fails to start. */
    public static LayoutScenarios start(Start start) throws Exception {
        List<FaultScenario> started = new ArrayList<>();
        try {
            for (SinkLayout layout : SinkLayout.values()) {
                started.add(start.start(layout));
            }
        } catch (Exception | AssertionError e) {
            closeAll(started, e);
            throw e;
        }
        return new LayoutScenarios(started);
    }

    /** The first layout's scenario (its topic names the partitions a Kafka fault aims at). */
    public FaultScenario first() {
        return scenarios.get(0);
    }

    public Stream<FaultScenario> stream() {
        return scenarios.stream();
    }

    @Override
    public Iterator<FaultScenario> iterator() {
        return scenarios.iterator();
    }

    /** Waits until each archive holds {@code atLeast} records. */
    public void awaitArchived(long atLeast) throws Exception {
        for (FaultScenario s : scenarios) {
            s.awaitArchived(atLeast);
        }
    }

    /** {@link FaultScenario#finish()} of each: everything archived, each archive exactly its topic's read_committed truth. */
    public void finish() throws Exception {
        for (FaultScenario s : scenarios) {
            s.finish();
        }
    }

    @Override
    public void close() throws Exception {
        Exception failure = new Exception("closing the scenarios failed");
        closeAll(scenarios, failure);
        if (failure.getSuppressed().length > 0) {
            throw failure;
        }
    }

    private static void closeAll(List<FaultScenario> scenarios, Throwable failure) {
        for (FaultScenario s : scenarios) {
            try {
                s.close();
            } catch (Exception e) {
                failure.addSuppressed(e);
            }
        }
    }
}
