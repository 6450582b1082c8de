package io.archiver.testutils;

import org.junit.jupiter.api.ClassDescriptor;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.ClassOrdererContext;

import java.util.Comparator;

/**
 * The order integration test classes are handed to JUnit's threads: the one that forked them takes classes from the
 * back of the list, the others from the front (JUnit forks them in order and joins them in reverse). The {@link
 * LongRunning} classes come first, the longest first, so that the threads meet on short ones at the end.
 * {@code @Isolated} classes run last, one at a time, whatever the order.
 */
public final class IntegrationTestOrder implements ClassOrderer {

    @Override
    public void orderClasses(ClassOrdererContext context) {
        context.getClassDescriptors().sort(Comparator.comparingInt(IntegrationTestOrder::seconds).reversed()
                .thenComparing(d -> d.getTestClass().getSimpleName()));
    }

    private static int seconds(ClassDescriptor d) {
        return d.findAnnotation(LongRunning.class).map(LongRunning::seconds).orElse(0);
    }
}
