package io.archiver.job;

import io.archiver.fs.IoThreads;

import org.apache.flink.util.InstantiationUtil;

import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** {@link BatchWork} in this JVM: a pool of threads, each with its own copy of the task, taking items from one queue. */
final class ThreadBatchWork implements BatchWork {

    private final int threads;

    ThreadBatchWork(int threads) {
        this.threads = Math.max(1, threads);
    }

    @Override
    public int parallelism() {
        return threads;
    }

    @Override
    public <T extends Serializable, R extends Serializable> List<R> run(String what, List<T> items, Task<T, R> task) throws IOException {
        ConcurrentLinkedQueue<T> queue = new ConcurrentLinkedQueue<>(items);
        List<R> results = Collections.synchronizedList(new ArrayList<>(items.size()));
        int n = Math.min(threads, Math.max(1, items.size()));
        ExecutorService pool = Executors.newFixedThreadPool(n, IoThreads.daemon(what));
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                Task<T, R> copy = copy(task);
                workers.add(pool.submit(() -> {
                    try {
                        for (T item = queue.poll(); item != null; item = queue.poll()) {
                            results.add(copy.apply(item));
                        }
                    } catch (IOException | RuntimeException e) {
                        queue.clear(); // the run fails: the other threads take no further item
                        throw e;
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                worker.get();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(what + " interrupted", e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause().getMessage(), e.getCause());
        } finally {
            pool.shutdownNow();
        }
        return new ArrayList<>(results);
    }

    private static <T, R> Task<T, R> copy(Task<T, R> task) throws IOException {
        try {
            return InstantiationUtil.clone(task, task.getClass().getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IOException(e);
        }
    }
}
