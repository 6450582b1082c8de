package io.archiver.testutils;

import org.junit.jupiter.api.ClassDescriptor;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.ClassOrdererContext;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

import java.util.Comparator;

/**
 * The order integration test classes are handed to JUnit's threads: the one that forked them takes classes from the
 * back of the list, the others from the front (JUnit forks them in order and joins them in reverse); a thread whose
 * next class waits for a lock waits idle. The class that looks at every thread of the JVM comes first, before any
 * job runs; then the {@link LongRunning} classes, the longest first, so that the threads meet on short ones at the
 * end. {@code @Isolated} classes run last, one at a time, whatever the order.
 */
public final class IntegrationTestOrder implements ClassOrderer {

    @Override
    public void orderClasses(ClassOrdererContext context) {
        context.getClassDescriptors().sort(Comparator.comparing(IntegrationTestOrder::looksAtEveryJobThread).reversed()
                .thenComparing(Comparator.comparingInt(IntegrationTestOrder::seconds).reversed())
                .thenComparing(d -> d.getTestClass().getSimpleName()));
    }

    private static int seconds(ClassDescriptor d) {
        return d.findAnnotation(LongRunning.class).map(LongRunning::seconds).orElse(0);
    }

    private static boolean looksAtEveryJobThread(ClassDescriptor d) {
        return d.findRepeatableAnnotations(ResourceLock.class).stream()
                .anyMatch(lock -> lock.value().equals(SharedStack.JOB_THREADS_LOCK) && lock.mode() == ResourceAccessMode.READ_WRITE);
    }
}
