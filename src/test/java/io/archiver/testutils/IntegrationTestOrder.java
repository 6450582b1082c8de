package io.archiver.testutils;

import org.junit.jupiter.api.ClassDescriptor;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.ClassOrdererContext;

import java.util.Comparator;

/**
 * The order integration test classes are handed to JUnit's threads: the one that forked them takes classes from the
 * back of the list, the others from the front (JUnit forks them in order and joins them in reverse). The classes
 * that run jobs on a MiniCluster are at the front, the {@link LongRunning} ones first, longest first, so that the
 * threads meet on short ones at the end. The others (session clusters, the local command: JVMs of their own) are at
 * the back, the longest last: the thread that takes from the back runs them one after another, longest first, and
 * no two of them load the two cores at once (two together slowed each other and everything beside them to twice
 * their time). {@code @Isolated} classes run last, one at a time, whatever the order.
 */
public final class IntegrationTestOrder implements ClassOrderer {

    @Override
    public void orderClasses(ClassOrdererContext context) {
        context.getClassDescriptors().sort(Comparator.comparing(IntegrationTestOrder::runsNoMiniClusterJobs)
                .thenComparingInt(d -> runsNoMiniClusterJobs(d) ? seconds(d) : -seconds(d))
                .thenComparing(d -> d.getTestClass().getSimpleName()));
    }

    private static int seconds(ClassDescriptor d) {
        return d.findAnnotation(LongRunning.class).map(LongRunning::seconds).orElse(0);
    }

    private static boolean runsNoMiniClusterJobs(ClassDescriptor d) {
        return !d.isAnnotated(SharedMiniCluster.class) && !d.isAnnotated(KillsTaskManagers.class);
    }
}
