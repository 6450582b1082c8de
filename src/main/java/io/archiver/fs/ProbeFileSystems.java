package io.archiver.fs;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.FileSystemFactory;
import org.apache.flink.core.fs.PluginFileSystemFactory;
import org.apache.flink.core.plugin.PluginManager;
import org.apache.flink.util.WrappingProxy;
import org.apache.flink.util.WrappingProxyUtil;

import java.io.Closeable;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Iterator;
import java.util.Optional;

/**
 * File systems for pre-flight probes: the plugin and settings a job will use, but a fresh instance (not
 * Flink's cached one) that does not retry. A store that refuses the credentials answers the probe's first
 * request; the job's own file system retries that request for minutes (the AWS client takes a refused
 * signature for clock skew, and S3A retries on top of it), which is right for a running job and wrong for
 * a check that should tell the operator at once.
 */
public final class ProbeFileSystems {

    private ProbeFileSystems() {}

    /**
     * A file system for {@code uri} from the plugins under {@code FLINK_PLUGINS_DIR}, configured with {@code
     * settings} without retries and with connections bounded by {@code timeout}; empty when no plugin serves
     * the scheme (then the caller uses Flink's file system, bounding the wait itself).
     */
    public static Optional<FileSystem> withoutRetries(URI uri, Configuration settings, Duration timeout) throws IOException {
        if (uri.getScheme() == null || !uri.getScheme().startsWith("s3")) {
            return Optional.empty();
        }
        Configuration probe = new Configuration(settings);
        probe.setString("fs.s3a.attempts.maximum", "0");
        probe.setString("fs.s3a.retry.limit", "0");
        probe.setString("fs.s3a.retry.throttle.limit", "0");
        probe.setString("fs.s3a.connection.establish.timeout", Long.toString(timeout.toMillis()));
        probe.setString("fs.s3a.connection.timeout", Long.toString(timeout.toMillis()));
        PluginManager plugins = FileSystemPlugins.of(probe);
        Iterator<FileSystemFactory> factories = plugins.load(FileSystemFactory.class);
        while (factories.hasNext()) {
            FileSystemFactory factory = PluginFileSystemFactory.of(factories.next());
            if (factory.getScheme().equals(uri.getScheme())) {
                factory.configure(probe);
                return Optional.of(factory.create(uri));
            }
        }
        return Optional.empty();
    }

    /** Closes what a probe's file system holds (its client's connections and threads), where it can. */
    @SuppressWarnings("unchecked")
    public static void close(FileSystem fs) {
        FileSystem inner = fs instanceof WrappingProxy ? WrappingProxyUtil.stripProxy((WrappingProxy<FileSystem>) fs) : fs;
        try {
            Object hadoop = inner.getClass().getMethod("getHadoopFileSystem").invoke(inner);
            if (hadoop instanceof Closeable) {
                ((Closeable) hadoop).close();
            }
        } catch (ReflectiveOperationException | IOException | RuntimeException e) {
            // not a Hadoop-based file system, or already closed: nothing held to release
        }
    }
}
