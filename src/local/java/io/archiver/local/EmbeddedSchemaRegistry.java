package io.archiver.local;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real Confluent-compatible Schema Registry for tests and the local stack: Apicurio Registry 2.6 (from Maven
 * Central, unpacked by the build into {@code target/schema-registry}) in a child JVM, in-memory storage, global
 * compatibility BACKWARD, on a free port. Its Confluent API is {@link #url()}.
 */
public final class EmbeddedSchemaRegistry implements AutoCloseable {

    /** Where the build unpacks the registry ({@code maven-dependency-plugin}, execution {@code schema-registry}). */
    public static final String DIR_PROPERTY = "archiver.schema-registry.dir";
    private static final String RUNNER = "apicurio-registry-app-2.6.13.Final-runner.jar";
    private static final Pattern LISTENING = Pattern.compile("Listening on: https?://[^:]+:(\\d+)");
    private static final Duration START_TIMEOUT = Duration.ofMinutes(2);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Process process;
    private final int port;
    private final String scheme;
    private final HttpClient http;

    private EmbeddedSchemaRegistry(Process process, int port, String scheme, HttpClient http) {
        this.process = process;
        this.port = port;
        this.scheme = scheme;
        this.http = http;
    }

    /** Starts the registry and waits (at most 2 minutes) until it listens. */
    public static EmbeddedSchemaRegistry start() throws IOException, InterruptedException {
        return start(null);
    }

    /**
     * Starts the registry serving HTTPS only, with the server certificate of {@code tls} (signed by its CA, for
     * 127.0.0.1 and localhost), and waits until it listens. Apicurio's build fixes client authentication off, so it
     * cannot ask for a client certificate.
     */
    public static EmbeddedSchemaRegistry startTls(TlsMaterial tls) throws IOException, InterruptedException {
        return start(tls);
    }

    private static EmbeddedSchemaRegistry start(TlsMaterial tls) throws IOException, InterruptedException {
        Path dir = Path.of(System.getProperty(DIR_PROPERTY, "target/schema-registry")).toAbsolutePath();
        Path jar = dir.resolve(RUNNER);
        if (!Files.isRegularFile(jar)) {
            throw new IOException("No Schema Registry at " + jar + ": run 'mvn generate-test-resources' (it unpacks "
                    + "io.apicurio:apicurio-registry-app:2.6.13.Final there) or set -D" + DIR_PROPERTY);
        }
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:TieredStopAtLevel=1", "-Dquarkus.http.port=0",
                "-Dquarkus.http.host=127.0.0.1", "-Dregistry.rules.global.compatibility=BACKWARD", "-Dquarkus.log.level=WARN",
                "-Dquarkus.log.category.\"io.quarkus\".level=INFO"));
        if (tls != null) {
            command.addAll(List.of("-Dquarkus.http.ssl-port=0", "-Dquarkus.http.insecure-requests=disabled",
                    "-Dquarkus.http.ssl.certificate.key-store-file=" + tls.serverKeyStore()));
        }
        command.addAll(List.of("-jar", jar.toString()));
        ProcessBuilder builder = new ProcessBuilder(command);
        if (tls != null) {
            // the store's password through the environment, not the command line (which ps shows)
            builder.environment().put("QUARKUS_HTTP_SSL_CERTIFICATE_KEY_STORE_PASSWORD", tls.password());
        }
        Process process = builder
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .start();
        Deque<String> lastLines = new ArrayDeque<>();
        CompletableFuture<Integer> port = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    Matcher m = LISTENING.matcher(line);
                    if (m.find()) {
                        port.complete(Integer.parseInt(m.group(1)));
                    }
                    synchronized (lastLines) {
                        lastLines.addLast(line);
                        if (lastLines.size() > 20) {
                            lastLines.removeFirst();
                        }
                    }
                }
            } catch (IOException e) {
                // the process ended
            }
            port.completeExceptionally(new IOException("the registry's output ended before it listened"));
        }, "schema-registry-output");
        reader.setDaemon(true);
        reader.start();
        try {
            int listening = port.get(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            return tls == null ? new EmbeddedSchemaRegistry(process, listening, "http", HttpClient.newHttpClient())
                    : new EmbeddedSchemaRegistry(process, listening, "https", HttpClient.newBuilder().sslContext(tls.clientContext()).build());
        } catch (Exception e) {
            process.destroyForcibly();
            synchronized (lastLines) {
                throw new IOException("The Schema Registry did not start (within " + START_TIMEOUT.toSeconds() + " s); its last output:\n"
                        + String.join("\n", lastLines), e);
            }
        }
    }

    /** The Confluent-compatible API's base URL, the value of {@code schema-registry.url}. */
    public String url() {
        return scheme + "://127.0.0.1:" + port + "/apis/ccompat/v7";
    }

    /** Registers {@code schema} (AVRO, PROTOBUF or JSON) under {@code subject} and returns its id. */
    public int register(String subject, String type, String schema) throws IOException, InterruptedException {
        return register(subject, type, schema, Map.of());
    }

    /**
     * Registers {@code schema} under {@code subject} with schema references: each name (an Avro type's full name,
     * an import path, a {@code $ref}) to the version 1 of a subject.
     */
    public int register(String subject, String type, String schema, Map<String, String> references) throws IOException, InterruptedException {
        ObjectNode body = JSON.createObjectNode().put("schema", schema).put("schemaType", type);
        references.forEach((name, referenced) -> body.withArray("references").addObject().put("name", name).put("subject", referenced).put("version", 1));
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url() + "/subjects/" + subject + "/versions"))
                        .header("Content-Type", "application/vnd.schemaregistry.v1+json")
                        .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("Registering under " + subject + " answered " + response.statusCode() + ": " + response.body());
        }
        return JSON.readTree(response.body()).get("id").asInt();
    }

    /** Freezes the registry's process (SIGSTOP): it accepts connections and answers nothing, as a hung server. */
    public void pause() throws IOException, InterruptedException {
        signal("STOP");
    }

    /** Lets a paused registry run on (SIGCONT). */
    public void resume() throws IOException, InterruptedException {
        signal("CONT");
    }

    private void signal(String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IOException("kill -" + name + " " + process.pid() + " failed");
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
