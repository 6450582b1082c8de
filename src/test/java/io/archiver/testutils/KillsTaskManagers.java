package io.archiver.testutils;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A test class that kills TaskManagers ({@link SharedStack#killAndReplaceTaskManagers()}): its jobs run on a MiniCluster
 * of its own, started before its tests and closed after them, so that it runs beside the classes whose jobs share the
 * {@link SharedStack}'s MiniCluster. Its jobs must be started from the test's own thread (the thread tells which
 * MiniCluster a job goes to), as the archiver's launcher and commands do when a test calls them.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(SharedStack.class)
@ExtendWith(KillsTaskManagers.OwnMiniCluster.class)
public @interface KillsTaskManagers {

    /** Starts the class's MiniCluster on the thread that runs its tests, and closes it after them. */
    final class OwnMiniCluster implements BeforeAllCallback, AfterAllCallback {

        @Override
        public void beforeAll(ExtensionContext context) throws Exception {
            SharedStack.get().startOwnMiniCluster();
        }

        @Override
        public void afterAll(ExtensionContext context) {
            SharedStack.get().closeOwnMiniCluster();
        }
    }
}
