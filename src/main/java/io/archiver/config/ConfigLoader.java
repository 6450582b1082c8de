package io.archiver.config;

import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Reads the archiver's YAML file and applies command-line overrides on top (precedence: option default,
 * then file, then override). Nested YAML maps are flattened with dots, so {@code kafka: {topics: a}} and
 * {@code kafka.topics: a} are the same key; YAML lists become comma-separated values.
 */
public final class ConfigLoader {

    private ConfigLoader() {}

    /** Loads {@code file} (may be null for none) and applies {@code overrides}. */
    public static ArchiverConfig load(Path file, Map<String, String> overrides) {
        return load(Map.of(), file, overrides);
    }

    /** Like {@link #load(Path, Map)}, with {@code base} settings below the file (used by the local stack). */
    public static ArchiverConfig load(Map<String, String> base, Path file, Map<String, String> overrides) {
        Map<String, String> settings = new LinkedHashMap<>(base);
        if (file != null) {
            settings.putAll(readYaml(file));
        }
        settings.putAll(overrides);
        return ArchiverConfig.of(settings);
    }

    static Map<String, String> readYaml(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new ConfigException(
                    "Configuration file '" + file + "' does not exist; pass an existing file with --config.");
        }
        Object doc;
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            doc = new Load(LoadSettings.builder().build()).loadFromReader(reader);
        } catch (IOException e) {
            throw new ConfigException("Cannot read configuration file '" + file + "': " + e.getMessage());
        } catch (RuntimeException e) {
            throw new ConfigException("Configuration file '" + file + "' is not valid YAML: " + e.getMessage());
        }
        Map<String, String> out = new LinkedHashMap<>();
        if (doc == null) {
            return out;
        }
        if (!(doc instanceof Map)) {
            throw new ConfigException(
                    "Configuration file '" + file + "' must hold a YAML map of keys to values.");
        }
        flatten("", (Map<?, ?>) doc, out);
        return out;
    }

    private static void flatten(String prefix, Map<?, ?> map, Map<String, String> out) {
        for (Map.Entry<?, ?> e : map.entrySet()) {
            String key = prefix + e.getKey();
            Object v = e.getValue();
            if (v instanceof Map) {
                flatten(key + ".", (Map<?, ?>) v, out);
            } else if (v instanceof Collection) {
                out.put(key, ((Collection<?>) v).stream().map(String::valueOf).collect(Collectors.joining(",")));
            } else if (v != null) {
                out.put(key, String.valueOf(v));
            }
        }
    }
}
