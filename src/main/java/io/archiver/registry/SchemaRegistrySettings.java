package io.archiver.registry;

import io.archiver.config.ArchiverConfig;
import io.archiver.config.SecretReferences;
import io.archiver.config.SchemaRegistryOptions;

import java.io.Serializable;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static io.archiver.config.SchemaRegistryOptions.*;

/**
 * How to reach the Schema Registry: the part of the configuration a task needs, small and serializable. Secrets
 * stay as written (usually {@code ${provider:path:key}} references) until {@link SchemaRegistryClient} resolves
 * them in the task, through the Kafka config providers of {@code kafka.properties.config.providers}.
 */
public record SchemaRegistrySettings(
        List<String> urls,
        String username,
        String password,
        String bearerToken,
        String trustStore,
        String trustStorePassword,
        String keyStore,
        String keyStorePassword,
        int cacheSize,
        Duration requestTimeout,
        Duration retryTimeout,
        Map<String, String> configProviders) implements Serializable {

    public SchemaRegistrySettings {
        urls = List.copyOf(urls);
        configProviders = Map.copyOf(configProviders);
    }

    /** The registry settings of {@code config}, or null when no record format needs the registry. */
    public static SchemaRegistrySettings of(ArchiverConfig config) {
        List<String> urls = SchemaRegistryOptions.urls(config);
        if (urls.isEmpty()) {
            return null;
        }
        Map<String, String> providers = SecretReferences.providers(config.kafkaClientProperties());
        return new SchemaRegistrySettings(
                urls,
                config.getOptional(SCHEMA_REGISTRY_USERNAME).orElse(null),
                config.getOptional(SCHEMA_REGISTRY_PASSWORD).orElse(null),
                config.getOptional(SCHEMA_REGISTRY_BEARER_TOKEN).orElse(null),
                config.getOptional(SCHEMA_REGISTRY_TRUSTSTORE).orElse(null),
                config.getOptional(SCHEMA_REGISTRY_TRUSTSTORE_PASSWORD).orElse(null),
                config.getOptional(SCHEMA_REGISTRY_KEYSTORE).orElse(null),
                config.getOptional(SCHEMA_REGISTRY_KEYSTORE_PASSWORD).orElse(null),
                config.get(SCHEMA_REGISTRY_CACHE_SIZE),
                config.get(SCHEMA_REGISTRY_REQUEST_TIMEOUT),
                config.get(SCHEMA_REGISTRY_RETRY_TIMEOUT),
                providers);
    }

    /** Never the secrets. */
    @Override
    public String toString() {
        return "registry " + String.join(", ", urls) + (username != null ? " (basic auth as " + username + ")" : bearerToken != null ? " (bearer token)" : "");
    }
}
