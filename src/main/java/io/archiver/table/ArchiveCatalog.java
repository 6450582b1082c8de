package io.archiver.table;

import io.archiver.config.CatalogType;
import io.archiver.config.TableOptions;

import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.UpdatePartitionSpec;
import org.apache.iceberg.UpdateProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.TypeUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The catalog of the archive's tables, opened from {@link TableSettings}: a table per topic, found or created
 * ({@code table.create}) with the envelope's schema and the partition spec of the layout, its spec brought to the
 * configured layout when that changed since.
 */
public final class ArchiveCatalog implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(ArchiveCatalog.class);
    /** The JDBC drivers this build carries, registered from the job's class loader (a cluster's system one does not see them). */
    private static final String[] JDBC_DRIVERS = {"org.sqlite.JDBC", "org.postgresql.Driver"};

    /**
     * A commit deletes the table's metadata files beyond the newest 100 (Iceberg keeps them all by default: one per
     * checkpoint per table, each listing every snapshot not expired yet). Table properties: an operator may change them.
     */
    static final Map<String, String> METADATA_RETENTION = Map.of(
            TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED, "true",
            TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, "100");

    private final TableSettings settings;
    private final Catalog catalog;
    private final Map<String, ArchiveTable> tables = new HashMap<>();

    private ArchiveCatalog(TableSettings settings, Catalog catalog) {
        this.settings = settings;
        this.catalog = catalog;
    }

    /** Opens the catalog {@code settings} name (a connection to it; nothing is created yet). */
    public static ArchiveCatalog open(TableSettings settings) {
        if (settings.catalogType() == CatalogType.JDBC) {
            for (String driver : JDBC_DRIVERS) {
                try {
                    Class.forName(driver, true, ArchiveCatalog.class.getClassLoader());
                } catch (ClassNotFoundException e) {
                    // not in this build
                }
            }
        }
        return new ArchiveCatalog(settings, CatalogUtil.buildIcebergCatalog(settings.catalogName(), settings.catalogProperties(), null));
    }

    /** The settings it was opened with. */
    public TableSettings settings() {
        return settings;
    }

    /** The identifier of {@code topic}'s table. */
    public TableIdentifier identifier(String topic) {
        return TableIdentifier.of(Namespace.of(settings.namespace()), settings.tableName(topic));
    }

    /** Whether {@code topic}'s table exists. */
    public boolean exists(String topic) {
        return catalog.tableExists(identifier(topic));
    }

    /**
     * {@code topic}'s table, created if missing and {@code table.create} allows (else it fails naming the table and the
     * option), its partition spec brought to the configured layout.
     */
    public ArchiveTable table(String topic) throws IOException {
        ArchiveTable known = tables.get(topic);
        if (known != null) {
            return known;
        }
        TableIdentifier id = identifier(topic);
        Table table;
        try {
            table = catalog.loadTable(id);
        } catch (NoSuchTableException e) {
            table = create(id);
        }
        ArchiveTable archived = new ArchiveTable(withMetadataRetention(withLayout(table, id), id), id.toString());
        tables.put(topic, archived);
        return archived;
    }

    private Table create(TableIdentifier id) throws IOException {
        if (!settings.create()) {
            throw new IOException("Table " + id + " does not exist in " + settings + " and " + TableOptions.TABLE_CREATE.key()
                    + " is false: create it, or set " + TableOptions.TABLE_CREATE.key() + ": true.");
        }
        if (catalog instanceof SupportsNamespaces namespaces && !namespaces.namespaceExists(id.namespace())) {
            try {
                namespaces.createNamespace(id.namespace());
                LOG.info("Created namespace {} in {}", id.namespace(), settings);
            } catch (AlreadyExistsException raced) {
                // created meanwhile: fine
            }
        }
        // the ids a new table gives its columns (in order, from 1), so that the name mapping is part of its first commit
        Schema schema = TypeUtil.assignFreshIds(TableLayout.envelope(settings.formats()), new AtomicInteger()::incrementAndGet);
        PartitionSpec spec = TableLayout.spec(schema, settings.layout(), settings.time());
        Map<String, String> properties = new HashMap<>();
        properties.put(TableProperties.FORMAT_VERSION, "2");
        properties.put(TableProperties.DEFAULT_FILE_FORMAT, "parquet");
        properties.put(TableProperties.DEFAULT_NAME_MAPPING, TableLayout.nameMapping(schema));
        properties.putAll(METADATA_RETENTION);
        try {
            Table table = catalog.buildTable(id, schema).withPartitionSpec(spec).withProperties(properties).create();
            LOG.info("Created table {} in {}: partitioned by {}", id, settings, table.spec().fields());
            return table;
        } catch (AlreadyExistsException raced) {
            return catalog.loadTable(id);
        }
    }

    /**
     * {@code table} with {@link #METADATA_RETENTION} if it has no metadata retention of its own (a table created before
     * this version); values an operator set stay.
     */
    private static Table withMetadataRetention(Table table, TableIdentifier id) {
        if (table.properties().containsKey(TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED)) {
            return table;
        }
        UpdateProperties update = table.updateProperties();
        METADATA_RETENTION.forEach((key, value) -> {
            if (!table.properties().containsKey(key)) {
                update.set(key, value);
            }
        });
        update.commit();
        LOG.info("Table {}: metadata files beyond the newest {} are deleted at each commit from now on", id,
                table.properties().get(TableProperties.METADATA_PREVIOUS_VERSIONS_MAX));
        return table;
    }

    /** {@code table} with the partition spec of the configured layout (a new spec if the layout changed since). */
    private Table withLayout(Table table, TableIdentifier id) {
        PartitionSpec wanted = TableLayout.spec(table.schema(), settings.layout(), settings.time());
        if (TableLayout.samePartitioning(table.spec(), wanted)) {
            return table;
        }
        UpdatePartitionSpec update = table.updateSpec();
        table.spec().fields().forEach(f -> update.removeField(f.name()));
        wanted.fields().forEach(f -> {
            String source = wanted.schema().findColumnName(f.sourceId());
            switch (f.transform().toString()) {
                case "identity" -> update.addField(source);
                case "day" -> update.addField(Expressions.day(source));
                case "hour" -> update.addField(Expressions.hour(source));
                default -> throw new IllegalStateException("Unexpected transform " + f.transform());
            }
        });
        update.commit();
        LOG.info("Table {}: partition spec now {} (sink.layout {}, sink.time-partitioning {})", id, table.spec().fields(),
                settings.layout(), settings.time());
        return table;
    }

    /** The catalog itself, for readers. */
    public Catalog catalog() {
        return catalog;
    }

    @Override
    public void close() throws IOException {
        if (catalog instanceof Closeable c) {
            c.close();
        }
    }
}
