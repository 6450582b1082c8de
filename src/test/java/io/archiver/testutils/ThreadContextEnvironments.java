package io.archiver.testutils;

import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.util.TestStreamEnvironment;

import java.util.List;
import java.util.function.Supplier;

/**
 * The environment of every job started in the test JVM ({@code StreamExecutionEnvironment.getExecutionEnvironment}, as
 * the archiver's launcher and commands call it): a {@link TestStreamEnvironment} on the MiniCluster that the calling
 * thread's test class uses. Flink's own {@code TestStreamEnvironment.setAsContext} binds one MiniCluster for every
 * thread. This class extends {@link StreamExecutionEnvironment} only to reach its protected
 * {@code initializeContextEnvironment}, as Flink's test environments do.
 */
final class ThreadContextEnvironments extends StreamExecutionEnvironment {

    private ThreadContextEnvironments() {}

    static void install(Supplier<MiniCluster> clusterOfThisThread, int parallelism) {
        initializeContextEnvironment(conf -> {
            TestStreamEnvironment env = new TestStreamEnvironment(clusterOfThisThread.get(), conf, parallelism, List.of(), List.of());
            env.configure(conf, ThreadContextEnvironments.class.getClassLoader());
            return env;
        });
    }
}
