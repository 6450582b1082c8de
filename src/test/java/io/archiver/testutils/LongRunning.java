package io.archiver.testutils;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * An integration test class that takes over 30 s by itself: {@link IntegrationTestOrder} hands it out before the
 * short ones, the longest first, so that the run does not end with one thread on it and the other idle.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
public @interface LongRunning {

    /** About how long the class takes here, in seconds (its time in a full run): the longest are handed out first. */
    int seconds();
}
