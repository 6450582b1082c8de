package io.archiver.fs;

import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.util.TemporaryClassLoaderContext;
import org.apache.flink.util.WrappingProxy;
import org.apache.flink.util.WrappingProxyUtil;

import java.io.IOException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs calls into a file system with the file system's own class loader (for S3, the plugin's) as the
 * thread's context class loader.
 *
 * <p>The S3 plugin uploads on thread pools that start threads on demand, from the thread that hands them
 * work, and a new thread keeps that thread's context class loader for its whole life. Flink sets the
 * plugin's loader around a plugin file system's own methods, but not around the streams and recoverable
 * writers they return, where the uploads start. From a task thread, the pool threads would keep the job's
 * class loader: Flink closes it when the job ends, the pools and the file system stay (they are shared by
 * every job of the TaskManager), and a later job's upload on such a thread fails with "Trying to access
 * closed classloader" once the S3 client's logging looks its configuration up through it.
 */
public final class FileSystemContext {

    private final ClassLoader loader;

    private FileSystemContext(ClassLoader loader) {
        this.loader = loader;
    }

    /** The context of the file system that holds {@code path}. */
    public static FileSystemContext of(Path path) throws IOException {
        FileSystem fs = path.getFileSystem();
        FileSystem inner = fs instanceof WrappingProxy ? unwrap(fs) : fs;
        return new FileSystemContext(inner.getClass().getClassLoader());
    }

    @SuppressWarnings("unchecked")
    private static FileSystem unwrap(FileSystem fs) {
        return WrappingProxyUtil.stripProxy((WrappingProxy<FileSystem>) fs);
    }

    /**
     * Whether {@code thread} runs in this context, a plugin's: a thread the file system started in its own
     * context. False for every thread when the file system is not a plugin's (its loader is the application's).
     */
    public boolean isContextOf(Thread thread) {
        return thread.getContextClassLoader() == loader && loader != FileSystemContext.class.getClassLoader()
                && loader != ClassLoader.getSystemClassLoader();
    }

    /** Makes the file system's class loader the thread's context class loader until the result is closed. */
    public TemporaryClassLoaderContext enter() {
        return TemporaryClassLoaderContext.of(loader);
    }

    /**
     * Daemon threads named {@code name-N} whose context class loader is the file system's: work handed to the
     * file system from them starts the plugin's pool threads in its context, whichever thread created them.
     */
    public ThreadFactory threads(String name) {
        AtomicInteger count = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, name + "-" + count.incrementAndGet());
            t.setDaemon(true);
            t.setContextClassLoader(loader);
            return t;
        };
    }
}
