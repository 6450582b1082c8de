package io.archiver.testutils;

import java.util.Set;

/**
 * Where the official Flink 2.2 distribution and image put the jars the deployment files name, as read from Flink's own
 * sources (2026-12-05), so that the Dockerfile and docker compose are held against the layout they start on:
 *
 * <ul>
 *   <li>{@code opt/}: optional file systems such as {@code flink-s3-fs-hadoop} (apache/flink
 *       {@code flink-dist/src/main/assemblies/opt.xml}; Flink's S3 docs: "copy the respective JAR file from the
 *       {@code opt} directory to the {@code plugins} directory");
 *   <li>{@code plugins/metrics-prometheus/}: the Prometheus reporter, enabled by default and no longer in {@code opt/}
 *       since FLINK-17812 (Flink 1.11; {@code flink-dist/src/main/assemblies/plugins.xml});
 *   <li>the image's {@code docker-entrypoint.sh} (apache/flink-docker, {@code 2.2/scala_2.12-java17-ubuntu}, commit
 *       fbe91e0 "Update Dockerfiles for 2.2.0 release") links each jar {@code ENABLE_BUILT_IN_PLUGINS} names from
 *       {@code opt/} into {@code plugins/<name>/} and exits with status 1 ("Plugin … does not exist. Exiting.") when
 *       {@code opt/} lacks it: the container does not start.
 * </ul>
 */
public final class FlinkDistributionLayout {

    /** Jars of {@code opt/} the deployment files may name, by name without the version. */
    public static final Set<String> OPT = Set.of("flink-s3-fs-hadoop", "flink-s3-fs-presto", "flink-azure-fs-hadoop", "flink-gs-fs-hadoop",
            "flink-oss-fs-hadoop");

    /** Plugin folders the distribution ships filled, under {@code plugins/}. */
    public static final Set<String> PLUGINS = Set.of("metrics-prometheus", "metrics-jmx", "metrics-slf4j", "metrics-graphite",
            "metrics-influx", "metrics-statsd", "metrics-datadog", "metrics-otel", "external-resource-gpu");

    private FlinkDistributionLayout() {}

    /** {@code flink-s3-fs-hadoop-2.2.0.jar} → {@code flink-s3-fs-hadoop}. */
    public static String unversioned(String jar) {
        return jar.replaceFirst("-\\d+\\.\\d+\\.\\d+\\.jar$", "");
    }
}
