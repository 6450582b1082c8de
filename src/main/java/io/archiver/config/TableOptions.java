package io.archiver.config;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.MemorySize;

import java.time.Duration;

import static org.apache.flink.configuration.ConfigOptions.key;

/**
 * The archive as a table: which table format, which catalog, where the tables are. Part of the option catalog
 * {@link ArchiverOptions}.
 */
public final class TableOptions {

    public static final ConfigOption<TableFormat> TABLE_FORMAT =
            key("table.format")
                    .enumType(TableFormat.class)
                    .defaultValue(TableFormat.NONE)
                    .withDescription(
                            "iceberg: every checkpoint's committed files are also appended to an Apache Iceberg table per topic "
                                    + "(<table.namespace>.<table.name-prefix><topic>), one snapshot per checkpoint whose summary carries "
                                    + "the checkpoint and each partition's next offset; the data files are the archive's own Parquet "
                                    + "files (sink.format: parquet). none: folders only.");

    public static final ConfigOption<CatalogType> TABLE_CATALOG_TYPE =
            key("table.catalog.type")
                    .enumType(CatalogType.class)
                    .defaultValue(CatalogType.JDBC)
                    .withDescription(
                            "jdbc: a catalog in a database (table.catalog.uri jdbc:sqlite:/path/catalog.db on one host, "
                                    + "jdbc:postgresql://host/db for a cluster). rest: an Iceberg REST catalog (Polaris, Glue, S3 Tables, "
                                    + "Nessie, Unity).");

    public static final ConfigOption<String> TABLE_CATALOG_URI =
            key("table.catalog.uri")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("The catalog: a JDBC URL for jdbc, the REST catalog's base URL for rest. Required with table.format: iceberg.");

    public static final ConfigOption<String> TABLE_CATALOG_WAREHOUSE =
            key("table.catalog.warehouse")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "jdbc: where new tables keep their metadata; default <sink.path>/_archiver/tables (engines reading "
                                    + "the folders skip it). rest: the warehouse the catalog serves, if it asks for one.");

    public static final ConfigOption<String> TABLE_CATALOG_NAME =
            key("table.catalog.name")
                    .stringType()
                    .defaultValue("archiver")
                    .withDescription("The catalog's name (a JDBC catalog keeps its tables under it, so every reader must use the same).");

    public static final ConfigOption<String> TABLE_CATALOG_USER =
            key("table.catalog.user")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("jdbc: the database user; a ${provider:path:key} reference is resolved by kafka.properties.config.providers.");

    public static final ConfigOption<String> TABLE_CATALOG_PASSWORD =
            key("table.catalog.password")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("jdbc: the database password; use a ${provider:path:key} reference, never the secret itself.");

    public static final ConfigOption<String> TABLE_CATALOG_CREDENTIAL =
            key("table.catalog.credential")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("rest: OAuth2 client credentials <client-id>:<client-secret> exchanged for a token; a ${provider:path:key} reference.");

    public static final ConfigOption<String> TABLE_CATALOG_TOKEN =
            key("table.catalog.token")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("rest: a bearer token sent instead of client credentials; a ${provider:path:key} reference.");

    public static final ConfigOption<String> TABLE_NAMESPACE =
            key("table.namespace")
                    .stringType()
                    .defaultValue("kafka")
                    .withDescription("The namespace (database) of the archive's tables; created with the first table if missing.");

    public static final ConfigOption<String> TABLE_NAME_PREFIX =
            key("table.name-prefix")
                    .stringType()
                    .defaultValue("")
                    .withDescription(
                            "A topic's table is named <prefix><topic>, every character other than letters, digits and '_' written '_' "
                                    + "(orders.v1 -> orders_v1); two topics that would share a name are refused at the start.");

    public static final ConfigOption<Boolean> TABLE_CREATE =
            key("table.create")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "Whether a missing namespace or table is created (pre-flight and the first commit). false: a missing one "
                                    + "fails the start, naming it.");

    public static final ConfigOption<MemorySize> TABLE_COMPACT_TARGET_FILE_SIZE =
            key("table.compact.target-file-size")
                    .memoryType()
                    .defaultValue(MemorySize.parse("128 mb"))
                    .withDescription(
                            "`table compact` concatenates the smaller files of a closed record-time folder into files of at most "
                                    + "this size; files this large or larger are left as they are.");

    public static final ConfigOption<Duration> TABLE_COMPACT_CLOSED_AFTER =
            key("table.compact.closed-after")
                    .durationType()
                    .defaultValue(Duration.ofHours(1))
                    .withDescription(
                            "A record-time folder (sink.time-partitioning) is compacted once it ended this long ago: late records "
                                    + "rarely arrive later. Without time folders nothing is compacted.");

    public static final ConfigOption<Duration> TABLE_EXPIRE_OLDER_THAN =
            key("table.expire.older-than")
                    .durationType()
                    .defaultValue(Duration.ofDays(7))
                    .withDescription(
                            "`table expire` drops the tables' snapshots older than this (time travel reaches this far back) and "
                                    + "deletes the files only they reference (those compactions replaced). Keep it longer than the "
                                    + "age of any savepoint you may start from.");

    public static final ConfigOption<Integer> TABLE_EXPIRE_RETAIN_LAST =
            key("table.expire.retain-last")
                    .intType()
                    .defaultValue(10)
                    .withDescription("`table expire` keeps at least this many of each table's newest snapshots, however old (1 or more).");

    /** Fails on a table the format cannot be, or a catalog not named. */
    static void validate(ArchiverConfig config) {
        if (config.get(TABLE_FORMAT) == TableFormat.NONE) {
            return;
        }
        if (!config.get(SinkOptions.SINK_FORMAT).equals("parquet")) {
            throw new ConfigException(
                    "'" + TABLE_FORMAT.key() + ": " + config.get(TABLE_FORMAT) + "' needs '" + SinkOptions.SINK_FORMAT.key()
                            + ": parquet' (the table's data files are the archive's own files, and "
                            + config.get(SinkOptions.SINK_FORMAT) + " is not a table file format): set sink.format: parquet, or "
                            + TABLE_FORMAT.key() + ": none.");
        }
        config.require(TABLE_CATALOG_URI, config.get(TABLE_CATALOG_TYPE) == CatalogType.JDBC
                ? "e.g. table.catalog.uri: jdbc:sqlite:/var/lib/archiver/catalog.db or jdbc:postgresql://db:5432/iceberg"
                : "e.g. table.catalog.uri: https://polaris.example.com/api/catalog");
        String uri = config.get(TABLE_CATALOG_URI);
        boolean jdbcUri = uri.startsWith("jdbc:");
        if (jdbcUri != (config.get(TABLE_CATALOG_TYPE) == CatalogType.JDBC)) {
            throw new ConfigException(
                    "Invalid value '" + uri + "' for '" + TABLE_CATALOG_URI.key() + "': " + TABLE_CATALOG_TYPE.key() + " is "
                            + config.get(TABLE_CATALOG_TYPE) + ", which takes " + (jdbcUri ? "an http(s) URL" : "a jdbc: URL")
                            + "; set " + TABLE_CATALOG_TYPE.key() + ": " + (jdbcUri ? "jdbc" : "rest") + " or change the URI.");
        }
        java.util.Map<String, String> tables = new java.util.HashMap<>();
        for (String topic : config.topics()) {
            String other = tables.putIfAbsent(tableName(config.get(TABLE_NAME_PREFIX), topic), topic);
            if (other != null) {
                throw new ConfigException("Topics '" + other + "' and '" + topic + "' would share the table '"
                        + tableName(config.get(TABLE_NAME_PREFIX), topic) + "' (" + TABLE_NAME_PREFIX.key() + " + the topic, every "
                        + "character other than letters, digits and '_' written '_'): archive them with two jobs of different "
                        + SinkOptions.SINK_PATH.key() + " and " + TABLE_NAME_PREFIX.key() + ".");
            }
        }
        if (config.get(TABLE_EXPIRE_RETAIN_LAST) < 1) {
            throw new ConfigException("Invalid value '" + config.get(TABLE_EXPIRE_RETAIN_LAST) + "' for '" + TABLE_EXPIRE_RETAIN_LAST.key()
                    + "': expected 1 or more (the current snapshot always stays).");
        }
        if (config.get(TABLE_COMPACT_TARGET_FILE_SIZE).getBytes() < 1024 * 1024) {
            throw new ConfigException("Invalid value '" + config.get(TABLE_COMPACT_TARGET_FILE_SIZE) + "' for '"
                    + TABLE_COMPACT_TARGET_FILE_SIZE.key() + "': expected at least 1 mb, e.g. 128 mb.");
        }
        if (config.get(TABLE_NAMESPACE).isBlank()) {
            throw new ConfigException("Invalid value '' for '" + TABLE_NAMESPACE.key() + "': expected a namespace name, e.g. kafka.");
        }
    }

    /** The name of {@code topic}'s table: {@code prefix} and the topic, every character other than letters, digits and '_' written '_'. */
    public static String tableName(String prefix, String topic) {
        return (prefix + topic).replaceAll("[^A-Za-z0-9_]", "_");
    }

    private TableOptions() {}
}
