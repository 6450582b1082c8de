package io.archiver.job;

import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.InstantiationUtil;

import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link BatchWork} as a Flink batch job on the environment's cluster: the items are the job's source (serialized, so
 * the job needs no type of them), spread round-robin over the task's subtasks, the results collected back to this
 * client. A failed item fails the job, and the job's restart strategy decides whether it runs again.
 */
final class FlinkBatchWork implements BatchWork {

    private final StreamExecutionEnvironment env;

    FlinkBatchWork(StreamExecutionEnvironment env) {
        this.env = env;
    }

    @Override
    public int parallelism() {
        return env.getParallelism();
    }

    @Override
    public <T extends Serializable, R extends Serializable> List<R> run(String what, List<T> items, Task<T, R> task) throws IOException {
        if (items.isEmpty()) {
            return List.of();
        }
        List<byte[]> serialized = new ArrayList<>(items.size());
        for (T item : items) {
            serialized.add(InstantiationUtil.serializeObject(item));
        }
        env.setRuntimeMode(RuntimeExecutionMode.BATCH);
        List<R> results = new ArrayList<>(items.size());
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        try (CloseableIterator<byte[]> collected = env.fromData(serialized).name(what + " items").uid(what + "-items")
                .rebalance()
                .map(new Run<>(task)).name(what).uid(what)
                .returns(PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO)
                .executeAndCollect(what)) {
            while (collected.hasNext()) {
                results.add(InstantiationUtil.deserializeObject(collected.next(), loader));
            }
        } catch (ClassNotFoundException e) {
            throw new IOException(e);
        } catch (Exception e) {
            Throwable cause = e;
            while (cause.getCause() != null) {
                cause = cause.getCause();
            }
            throw new IOException("the Flink job '" + what + "' failed: " + cause, e);
        }
        return results;
    }

    /** One item: deserialized, the task run over it, its result serialized. */
    private static final class Run<T, R> implements MapFunction<byte[], byte[]> {
        private static final long serialVersionUID = 1L;
        private final Task<T, R> task;

        Run(Task<T, R> task) {
            this.task = task;
        }

        @Override
        public byte[] map(byte[] item) throws Exception {
            T value = InstantiationUtil.deserializeObject(item, Thread.currentThread().getContextClassLoader());
            return InstantiationUtil.serializeObject(task.apply(value));
        }
    }
}
