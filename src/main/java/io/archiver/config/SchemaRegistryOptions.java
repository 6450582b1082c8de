package io.archiver.config;

import org.apache.flink.configuration.ConfigOption;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import static org.apache.flink.configuration.ConfigOptions.key;

/**
 * The Schema Registry that decodes {@code avro} payloads (Confluent's REST API: Confluent Schema Registry,
 * Apicurio's {@code /apis/ccompat/v7}, Karapace, Redpanda). Part of the option catalog {@link ArchiverOptions}.
 */
public final class SchemaRegistryOptions {

    public static final ConfigOption<String> SCHEMA_REGISTRY_URL =
            key("schema-registry.url")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Base URL(s) of the Schema Registry's Confluent-compatible API, comma-separated for failover "
                                    + "(e.g. https://registry:8081 or http://apicurio:8080/apis/ccompat/v7). Required when a record format is avro.");

    public static final ConfigOption<String> SCHEMA_REGISTRY_USERNAME =
            key("schema-registry.basic-auth.username")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("User for HTTP basic authentication to the registry; ${provider:path:key} references are resolved by kafka.properties.config.providers.");

    public static final ConfigOption<String> SCHEMA_REGISTRY_PASSWORD =
            key("schema-registry.basic-auth.password")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("Password for HTTP basic authentication (with schema-registry.basic-auth.username); use a ${provider:path:key} reference, never the secret itself.");

    public static final ConfigOption<String> SCHEMA_REGISTRY_BEARER_TOKEN =
            key("schema-registry.bearer-token")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("Bearer token sent to the registry instead of basic authentication; a ${provider:path:key} reference.");

    public static final ConfigOption<String> SCHEMA_REGISTRY_TRUSTSTORE =
            key("schema-registry.ssl.truststore.location")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("Trust store (PKCS12 or JKS) of the CAs an https registry's certificate is checked against; default: the JVM's.");

    public static final ConfigOption<String> SCHEMA_REGISTRY_TRUSTSTORE_PASSWORD =
            key("schema-registry.ssl.truststore.password")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("Password of schema-registry.ssl.truststore.location.");

    public static final ConfigOption<String> SCHEMA_REGISTRY_KEYSTORE =
            key("schema-registry.ssl.keystore.location")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("Key store (PKCS12 or JKS) with the client certificate for a registry that requires mutual TLS.");

    public static final ConfigOption<String> SCHEMA_REGISTRY_KEYSTORE_PASSWORD =
            key("schema-registry.ssl.keystore.password")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("Password of schema-registry.ssl.keystore.location (and of its key).");

    public static final ConfigOption<Integer> SCHEMA_REGISTRY_CACHE_SIZE =
            key("schema-registry.cache.max-schemas")
                    .intType()
                    .defaultValue(1000)
                    .withDescription("Schemas kept in memory per TaskManager, by id (least recently used dropped first); a schema is fetched once while it stays in.");

    public static final ConfigOption<Duration> SCHEMA_REGISTRY_REQUEST_TIMEOUT =
            key("schema-registry.request.timeout")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(10))
                    .withDescription("How long one request to the registry may take before the next URL, or the next attempt, is tried.");

    public static final ConfigOption<Duration> SCHEMA_REGISTRY_RETRY_TIMEOUT =
            key("schema-registry.retry.timeout")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(2))
                    .withDescription(
                            "How long a registry that is down or answers 5xx is retried, with backoff, before the task fails "
                                    + "and the job restarts from its last checkpoint (a down registry is never bad input: no record is skipped for it).");

    /** Fails when a record format needs the registry and no URL is set, or a URL is not http(s). */
    static void validate(ArchiverConfig config) {
        boolean needed = config.get(RecordOptions.RECORD_KEY_FORMAT).decodedWithRegistry()
                || config.get(RecordOptions.RECORD_VALUE_FORMAT).decodedWithRegistry();
        List<String> urls = urls(config);
        if (needed && urls.isEmpty()) {
            throw new ConfigException("'" + SCHEMA_REGISTRY_URL.key() + "' is required when record.key.format or record.value.format is avro, json-schema, protobuf or schema-registry: "
                    + "set it to the registry's Confluent-compatible API, e.g. schema-registry.url: http://registry:8081");
        }
        if (config.get(RecordOptions.RECORD_HEADER_FORMAT).decodedWithRegistry()) {
            throw new ConfigException("Invalid value '" + config.get(RecordOptions.RECORD_HEADER_FORMAT).configName() + "' for '" + RecordOptions.RECORD_HEADER_FORMAT.key()
                    + "': header values are stored as bytes, string or json; formats decoded with the Schema Registry are for record.key.format and record.value.format.");
        }
        for (String url : urls) {
            if (!url.trim().startsWith("http://") && !url.trim().startsWith("https://")) {
                throw new ConfigException("Invalid value '" + url + "' for '" + SCHEMA_REGISTRY_URL.key() + "': a registry URL starts with http:// or https://");
            }
        }
        if (config.isSet(SCHEMA_REGISTRY_USERNAME.key()) != config.isSet(SCHEMA_REGISTRY_PASSWORD.key())) {
            throw new ConfigException("'" + SCHEMA_REGISTRY_USERNAME.key() + "' and '" + SCHEMA_REGISTRY_PASSWORD.key() + "' are set together (basic authentication).");
        }
        if (config.isSet(SCHEMA_REGISTRY_PASSWORD.key()) && config.isSet(SCHEMA_REGISTRY_BEARER_TOKEN.key())) {
            throw new ConfigException("Set either basic authentication (" + SCHEMA_REGISTRY_USERNAME.key() + ") or '" + SCHEMA_REGISTRY_BEARER_TOKEN.key() + "', not both.");
        }
        if (config.get(SCHEMA_REGISTRY_CACHE_SIZE) < 1) {
            throw new ConfigException("Invalid value '" + config.get(SCHEMA_REGISTRY_CACHE_SIZE) + "' for '" + SCHEMA_REGISTRY_CACHE_SIZE.key() + "': at least 1.");
        }
    }

    /** The registry URLs of {@code config}, in failover order, without a trailing slash; empty when none is set. */
    public static List<String> urls(ArchiverConfig config) {
        return config.getOptional(SCHEMA_REGISTRY_URL).stream()
                .flatMap(v -> Arrays.stream(v.split(",")))
                .map(String::trim)
                .filter(u -> !u.isEmpty())
                .map(u -> u.endsWith("/") ? u.substring(0, u.length() - 1) : u)
                .toList();
    }

    private SchemaRegistryOptions() {}
}
