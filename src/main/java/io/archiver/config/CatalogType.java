package io.archiver.config;

/** The kind of Iceberg catalog that tracks the archive's tables. */
public enum CatalogType implements ConfigValue {
    /** A catalog in a relational database: SQLite (embedded, one host) or PostgreSQL. */
    JDBC,
    /** The Iceberg REST catalog protocol: Polaris, AWS Glue's and S3 Tables' Iceberg endpoints, Nessie, Unity, Lakekeeper. */
    REST;

    @Override
    public String toString() {
        return configName();
    }
}
