package io.archiver.testutils;

import org.junit.jupiter.api.ClassDescriptor;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.ClassOrdererContext;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

import java.util.Comparator;

/**
 * The order integration test classes are handed to JUnit's threads: the one that forked them takes classes from the
 * back of the list, the others from the front (JUnit forks them in order and joins them in reverse). Classes that kill the
 * MiniCluster's TaskManagers come first, so that the classes taken meanwhile from the back are
 * the ones that need no MiniCluster (session clusters and commands in JVMs of their own) and can run beside them;
 * a thread whose next class waits for a lock waits idle. Of the classes running MiniCluster jobs, the {@link
 * LongRunning} ones come first, the longest first, so that the threads meet on short ones at the end. {@code @Isolated} classes run
 * last, one at a time, whatever the order.
 */
public final class IntegrationTestOrder implements ClassOrderer {

    @Override
    public void orderClasses(ClassOrdererContext context) {
        context.getClassDescriptors().sort(Comparator.comparingInt(IntegrationTestOrder::rank)
                .thenComparing(Comparator.comparingInt(IntegrationTestOrder::seconds).reversed())
                .thenComparing(d -> d.getTestClass().getSimpleName()));
    }

    private static int seconds(ClassDescriptor d) {
        return d.findAnnotation(LongRunning.class).map(LongRunning::seconds).orElse(0);
    }

    private static int rank(ClassDescriptor d) {
        if (d.findRepeatableAnnotations(ResourceLock.class).stream()
                .anyMatch(lock -> lock.value().equals(SharedStack.TASK_MANAGERS_LOCK) && lock.mode() == ResourceAccessMode.READ_WRITE)) {
            return 0;
        }
        if (d.isAnnotated(SharedMiniCluster.class)) {
            return d.isAnnotated(LongRunning.class) ? 1 : 2;
        }
        return 3;
    }
}
