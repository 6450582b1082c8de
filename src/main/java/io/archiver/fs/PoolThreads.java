package io.archiver.fs;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.Field;
import java.security.AccessControlContext;
import java.security.ProtectionDomain;

/**
 * Makes the threads of a file system's pools forget the job whose calls created them, so that a finished
 * job's class loader is not kept by threads that serve the next jobs of a TaskManager.
 *
 * <p>Java 17 gives every new thread the access-control context of the stack that creates it ({@code
 * Thread.inheritedAccessControlContext}): the protection domain, and with it the class loader, of every class
 * on that stack. The S3 plugin's pools (Flink's upload pool, Hadoop's {@code s3a-transfer-*}) create threads
 * on demand inside the job's calls, with the job's classes on the stack; the threads outlive the job and keep
 * its class loader and every class it loaded (about 27 MB of metaspace per job). Nothing in the plugin's API
 * can create them elsewhere, so when a job's parts that use the file system close, {@link #forgetJobs} gives
 * every thread of the file system (its context class loader is the file system's: {@link FileSystemContext})
 * an access-control context without domains. That context is consulted only under a security manager, which
 * Flink does not install; with one installed nothing is changed.
 */
public final class PoolThreads {

    private static final Logger LOG = LoggerFactory.getLogger(PoolThreads.class);
    @SuppressWarnings("removal")
    private static final AccessControlContext NO_DOMAINS = new AccessControlContext(new ProtectionDomain[0]);
    private static final Field INHERITED_CONTEXT = inheritedContextField();

    private PoolThreads() {}

    /** Drops what the threads of {@code fs} inherited from the stacks that created them; returns how many changed. */
    @SuppressWarnings("removal")
    public static int forgetJobs(FileSystemContext fs) {
        if (INHERITED_CONTEXT == null || System.getSecurityManager() != null) {
            return 0;
        }
        int changed = 0;
        for (Thread thread : liveThreads()) {
            if (thread != Thread.currentThread() && fs.isContextOf(thread)) {
                try {
                    if (INHERITED_CONTEXT.get(thread) != NO_DOMAINS) {
                        INHERITED_CONTEXT.set(thread, NO_DOMAINS);
                        changed++;
                    }
                } catch (IllegalAccessException e) {
                    return changed;
                }
            }
        }
        return changed;
    }

    private static Thread[] liveThreads() {
        ThreadGroup root = Thread.currentThread().getThreadGroup();
        while (root.getParent() != null) {
            root = root.getParent();
        }
        Thread[] threads = new Thread[root.activeCount() + 16];
        int n;
        while ((n = root.enumerate(threads, true)) == threads.length) {
            threads = new Thread[threads.length * 2];
        }
        Thread[] live = new Thread[n];
        System.arraycopy(threads, 0, live, 0, n);
        return live;
    }

    private static Field inheritedContextField() {
        try {
            Field field = Thread.class.getDeclaredField("inheritedAccessControlContext");
            field.setAccessible(true);
            return field;
        } catch (NoSuchFieldException e) {
            // a Java without inherited access-control contexts: nothing to forget
            return null;
        } catch (RuntimeException e) {
            LOG.warn("Threads of the S3 file system's pools will keep each finished job's classes (about 27 MB of metaspace "
                    + "per job on a session cluster's TaskManager): java.lang is not open to the archiver ({}). Add "
                    + "--add-opens=java.base/java.lang=ALL-UNNAMED to env.java.opts.all, as Flink's default configuration does.",
                    e.toString());
            return null;
        }
    }
}
