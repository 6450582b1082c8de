package io.archiver.testutils;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.runtime.testutils.MiniClusterResource;

import java.util.ArrayList;
import java.util.List;

/**
 * A Flink MiniCluster for test jobs ({@link SharedStack#TASK_MANAGERS} × {@link SharedStack#SLOTS_PER_TASK_MANAGER}) whose
 * TaskManagers can be killed. Not Flink's {@code MiniClusterWithClientResource}: that one makes itself the context
 * environment of every thread (and unsets it when closed); {@link ThreadContextEnvironments} routes jobs instead.
 */
final class TestMiniCluster implements AutoCloseable {

    private final MiniClusterResource flink;
    private final List<Integer> liveTaskManagers = new ArrayList<>();
    private int nextTaskManager;

    private TestMiniCluster(MiniClusterResource flink) {
        this.flink = flink;
        for (nextTaskManager = 0; nextTaskManager < SharedStack.TASK_MANAGERS; nextTaskManager++) {
            liveTaskManagers.add(nextTaskManager);
        }
    }

    static TestMiniCluster start(Configuration conf) throws Exception {
        MiniClusterResource flink =
                new MiniClusterResource(
                        new MiniClusterResourceConfiguration.Builder()
                                .setConfiguration(conf)
                                .setNumberTaskManagers(SharedStack.TASK_MANAGERS)
                                .setNumberSlotsPerTaskManager(SharedStack.SLOTS_PER_TASK_MANAGER)
                                .build());
        flink.before();
        return new TestMiniCluster(flink);
    }

    MiniCluster miniCluster() {
        return flink.getMiniCluster();
    }

    /** Kills every TaskManager (every running task fails at whatever point it is) and starts fresh ones. */
    synchronized void killAndReplaceTaskManagers() throws Exception {
        for (int index : liveTaskManagers) {
            miniCluster().terminateTaskManager(index).get();
        }
        liveTaskManagers.clear();
        for (int i = 0; i < SharedStack.TASK_MANAGERS; i++) {
            miniCluster().startTaskManager();
            liveTaskManagers.add(nextTaskManager++);
        }
    }

    @Override
    public void close() {
        flink.after();
    }
}
