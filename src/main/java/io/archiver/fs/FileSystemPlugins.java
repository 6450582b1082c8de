package io.archiver.fs;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.plugin.PluginConfig;
import org.apache.flink.core.plugin.PluginManager;
import org.apache.flink.core.plugin.PluginUtils;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The plugins (the S3 file systems) of this JVM, loaded once per plugins folder and class-loading settings. Each
 * new {@link PluginManager} loads the plugins' classes again in class loaders of its own: a JVM that initialized
 * Flink's file systems twice (a job, then a command reading the archive) held two copies of the S3 classes, and a
 * job whose task restored a file from the other copy failed with "S3Recoverable cannot be cast to
 * S3Recoverable"; every copy also stays in metaspace. One manager per settings keeps one copy.
 */
public final class FileSystemPlugins {

    private static final Map<String, PluginManager> MANAGERS = new ConcurrentHashMap<>();

    private FileSystemPlugins() {}

    /** The plugin manager of the folder and parent-first patterns {@code conf} names (as Flink's own start-up reads them). */
    public static PluginManager of(Configuration conf) {
        PluginConfig plugins = PluginConfig.fromConfiguration(conf);
        String key = plugins.getPluginsPath().map(Object::toString).orElse("") + "\n"
                + Arrays.toString(plugins.getAlwaysParentFirstPatterns());
        return MANAGERS.computeIfAbsent(key, k -> PluginUtils.createPluginManagerFromRootFolder(conf));
    }
}
