package io.archiver.config;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * {@code ${provider:path:key}} references in secrets, resolved by the Kafka config providers named under
 * {@code kafka.properties.config.providers} (file, directory, environment variables, or any provider on the class
 * path), so every secret of the configuration is given and resolved the same way.
 */
public final class SecretReferences {

    private SecretReferences() {}

    /** The config provider settings among Kafka client properties ({@code config.providers*}). */
    public static Map<String, String> providers(Properties kafkaClient) {
        Map<String, String> providers = new TreeMap<>();
        for (String name : kafkaClient.stringPropertyNames()) {
            if (name.startsWith("config.providers")) {
                providers.put(name, kafkaClient.getProperty(name));
            }
        }
        return providers;
    }

    /** {@code secrets} (name to value; null values left out) with every reference resolved through {@code providers}. */
    public static Map<String, String> resolve(Map<String, String> providers, Map<String, String> secrets) {
        Map<String, Object> values = new HashMap<>(providers);
        secrets.forEach((k, v) -> {
            if (v != null) {
                values.put(k, v);
            }
        });
        Map<String, String> resolved = new HashMap<>();
        new AbstractConfig(new ConfigDef(), values, false).originalsStrings().forEach((k, v) -> {
            if (!k.startsWith("config.providers")) {
                resolved.put(k, v);
            }
        });
        return resolved;
    }
}
