package io.archiver.testutils;

import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A test class that runs jobs on the {@link SharedStack}'s MiniCluster, beside other classes; it never kills its
 * TaskManagers (a class that does has a MiniCluster of its own: {@link KillsTaskManagers}).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(SharedStack.class)
public @interface SharedMiniCluster {}
