package io.archiver.testutils;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A test class that runs jobs on the {@link SharedStack}'s MiniCluster: it may run beside another such class,
 * never beside one that kills the MiniCluster's TaskManagers (which holds {@link SharedStack#TASK_MANAGERS_LOCK}
 * for writing).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(SharedStack.class)
@ResourceLock(value = SharedStack.TASK_MANAGERS_LOCK, mode = ResourceAccessMode.READ)
public @interface SharedMiniCluster {}
