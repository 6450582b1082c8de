package io.archiver.testutils;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A real Iceberg REST catalog: Apache Iceberg's own REST catalog server (the server of the apache/iceberg-rest-fixture
 * image, a JDBC catalog on SQLite behind the REST API), run as a process of its own from the jars
 * {@code conf/iceberg-rest/pom.xml} resolves into {@code target/iceberg-rest/lib} (the build's pre-integration-test
 * phase). Its tables' metadata go to a warehouse folder of its own; the archive's data files stay where the archiver
 * wrote them.
 */
public final class RestCatalogServer implements AutoCloseable {

    private static final Path LIB = Path.of("target", "iceberg-rest", "lib");

    private final Process process;
    private final Path dir;
    private final URI uri;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private RestCatalogServer(Process process, Path dir, int port) {
        this.process = process;
        this.dir = dir;
        this.uri = URI.create("http://127.0.0.1:" + port);
    }

    /** Starts the server on a free port with an empty catalog and warehouse, and waits until it answers. */
    public static RestCatalogServer start() throws Exception {
        if (!Files.isDirectory(LIB)) {
            throw new IllegalStateException(LIB + " is missing: `mvn verify` resolves it (conf/iceberg-rest/pom.xml)");
        }
        Path dir = Files.createTempDirectory("iceberg-rest");
        int port = SessionClusters.freePort();
        ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-cp", LIB.toAbsolutePath() + "/*", "org.apache.iceberg.rest.RESTCatalogServer")
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("server.log").toFile());
        builder.environment().put("CATALOG_REST_PORT", Integer.toString(port));
        builder.environment().put("CATALOG_WAREHOUSE", dir.resolve("warehouse").toUri().toString());
        // its JDBC catalog in a file through one connection: the default, SQLite in memory, is a database per
        // connection of its pool, and a request on the second one finds no tables (a 500)
        builder.environment().put("CATALOG_URI", "jdbc:sqlite:" + dir.resolve("catalog.db"));
        builder.environment().put("CATALOG_CLIENTS", "1");
        RestCatalogServer server = new RestCatalogServer(builder.start(), dir, port);
        Await.until("the Iceberg REST catalog ready on port " + port, Duration.ofSeconds(60), server::ready, server::log);
        return server;
    }

    /** The catalog's base URL ({@code table.catalog.uri}). */
    public String uri() {
        return uri.toString();
    }

    private boolean ready() throws Exception {
        if (!process.isAlive()) {
            throw new IllegalStateException("The REST catalog server exited: " + log());
        }
        try {
            HttpResponse<Void> r = http.send(HttpRequest.newBuilder(uri.resolve("/v1/config")).timeout(Duration.ofSeconds(2)).build(),
                    HttpResponse.BodyHandlers.discarding());
            return r.statusCode() == 200;
        } catch (java.io.IOException e) {
            return false;
        }
    }

    private String log() throws Exception {
        Path log = dir.resolve("server.log");
        return Files.exists(log) ? Files.readString(log) : "";
    }

    @Override
    public void close() throws Exception {
        process.destroy();
        if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
