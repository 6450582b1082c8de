package io.archiver.table;

import io.archiver.archive.ArchiveRoot;
import io.archiver.config.ArchiverConfig;
import io.archiver.config.CatalogType;
import io.archiver.config.SecretReferences;
import io.archiver.config.SinkLayout;
import io.archiver.config.TableFormat;
import io.archiver.config.TableOptions;
import io.archiver.config.TimePartitioning;
import io.archiver.record.PayloadFormats;

import java.io.Serializable;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import static io.archiver.config.SinkOptions.SINK_LAYOUT;
import static io.archiver.config.SinkOptions.SINK_TIME_PARTITIONING;
import static io.archiver.config.TableOptions.*;

/**
 * What the table side of the archive needs on a task manager: the catalog (its secrets still as written, resolved
 * where the catalog is opened), the namespace and names of the tables, whether to create them, and the layout
 * the partition spec follows. Never printed with its secrets.
 */
public record TableSettings(
        CatalogType catalogType,
        String catalogName,
        String uri,
        String warehouse,
        String user,
        String password,
        String credential,
        String token,
        Map<String, String> configProviders,
        String namespace,
        String namePrefix,
        boolean create,
        SinkLayout layout,
        TimePartitioning time,
        PayloadFormats formats) implements Serializable {

    public TableSettings {
        configProviders = Map.copyOf(configProviders);
    }

    /** The table settings of {@code config}, if it writes a table. */
    public static Optional<TableSettings> of(ArchiverConfig config) {
        if (config.get(TABLE_FORMAT) == TableFormat.NONE) {
            return Optional.empty();
        }
        return Optional.of(new TableSettings(
                config.get(TABLE_CATALOG_TYPE),
                config.get(TABLE_CATALOG_NAME),
                config.get(TABLE_CATALOG_URI),
                config.getOptional(TABLE_CATALOG_WAREHOUSE).orElse(
                        config.get(TABLE_CATALOG_TYPE) == CatalogType.JDBC ? ArchiveRoot.of(config).tables().toString() : null),
                config.getOptional(TABLE_CATALOG_USER).orElse(null),
                config.getOptional(TABLE_CATALOG_PASSWORD).orElse(null),
                config.getOptional(TABLE_CATALOG_CREDENTIAL).orElse(null),
                config.getOptional(TABLE_CATALOG_TOKEN).orElse(null),
                SecretReferences.providers(config.kafkaClientProperties()),
                config.get(TABLE_NAMESPACE),
                config.get(TABLE_NAME_PREFIX),
                config.get(TABLE_CREATE),
                config.get(SINK_LAYOUT),
                config.get(SINK_TIME_PARTITIONING),
                PayloadFormats.of(config)));
    }

    /** The name of {@code topic}'s table in the namespace. */
    public String tableName(String topic) {
        return TableOptions.tableName(namePrefix, topic);
    }

    /** The catalog's properties, secrets resolved: never log them. */
    Map<String, String> catalogProperties() {
        Map<String, String> secrets = new HashMap<>();
        secrets.put("user", user);
        secrets.put("password", password);
        secrets.put("credential", credential);
        secrets.put("token", token);
        Map<String, String> resolved = SecretReferences.resolve(configProviders, secrets);
        Map<String, String> props = new HashMap<>();
        props.put("uri", uri);
        props.put("io-impl", FlinkFileIO.class.getName());
        if (warehouse != null) {
            props.put("warehouse", warehouse);
        }
        if (catalogType == CatalogType.JDBC) {
            props.put("type", "jdbc");
            putIfSet(props, "jdbc.user", resolved.get("user"));
            putIfSet(props, "jdbc.password", resolved.get("password"));
            props.put("jdbc.schema-version", "V1");
        } else {
            props.put("type", "rest");
            putIfSet(props, "credential", resolved.get("credential"));
            putIfSet(props, "token", resolved.get("token"));
        }
        return props;
    }

    private static void putIfSet(Map<String, String> props, String key, String value) {
        if (value != null) {
            props.put(key, value);
        }
    }

    /** Never the secrets. */
    @Override
    public String toString() {
        return "Iceberg " + catalogType + " catalog '" + catalogName + "' at " + uri.replaceAll("(?i)(password=)[^&;]*", "$1***")
                + ", namespace " + namespace;
    }
}
