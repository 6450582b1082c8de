package io.archiver.job;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.io.IOException;
import java.io.Serializable;
import java.util.List;

/**
 * Runs one function over many items in parallel, each item once: in this JVM's threads when the command runs by itself
 * ({@code bin/archiver}), or as a Flink batch job spread over the cluster's slots when it was submitted with
 * {@code flink run} (for archives too large for one process). The function and the items travel serialized either
 * way, so each thread (like each subtask) works with a copy of its own.
 */
public interface BatchWork {

    /** A function of one item; may throw, which fails the whole run. */
    @FunctionalInterface
    interface Task<T, R> extends Serializable {
        R apply(T item) throws IOException;
    }

    /** The results of {@code task} over {@code items}, in no particular order; {@code what} names the run (job name, threads). */
    <T extends Serializable, R extends Serializable> List<R> run(String what, List<T> items, Task<T, R> task) throws IOException;

    /** How many items run at once. */
    int parallelism();

    /** Threads of this JVM when {@code env} is local ({@link JobLauncher#isLocal}), otherwise batch jobs on {@code env}'s cluster. */
    static BatchWork of(StreamExecutionEnvironment env) {
        return JobLauncher.isLocal(env) ? new ThreadBatchWork(env.getParallelism()) : new FlinkBatchWork(env);
    }
}
