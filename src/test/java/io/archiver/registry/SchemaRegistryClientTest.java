package io.archiver.registry;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import org.apache.avro.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The client's HTTP behaviour against a stand-in of the registry's REST API (the JDK's HTTP server; the real
 * registry's API is exercised by SchemaRegistryITCase): credentials resolved through a Kafka config provider and
 * sent, never shown; a refused URL failed over; a 503 retried; schemas cached by id.
 */
class SchemaRegistryClientTest {

    private static final String SCHEMA = "{\"type\": \"record\", \"name\": \"R\", \"fields\": [{\"name\": \"a\", \"type\": \"int\"}]}";
    private static final String PASSWORD = "registry-secret-9f3";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir Path dir;

    private final List<String> authorizations = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger requests = new AtomicInteger();
    private final AtomicInteger unavailableFor = new AtomicInteger();
    private final Map<String, String> answers = new ConcurrentHashMap<>();
    private HttpServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    private String start() throws Exception {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        String expected = "Basic " + Base64.getEncoder().encodeToString(("archiver:" + PASSWORD).getBytes(StandardCharsets.UTF_8));
        server.createContext("/", exchange -> {
            requests.incrementAndGet();
            String authorization = exchange.getRequestHeaders().getFirst("Authorization");
            authorizations.add(String.valueOf(authorization));
            byte[] body;
            int status;
            if (unavailableFor.getAndDecrement() > 0) {
                status = 503;
                body = "{\"error_code\": 50301}".getBytes(StandardCharsets.UTF_8);
            } else if (!expected.equals(authorization) && !"Bearer token-7c1".equals(authorization)) {
                status = 401;
                body = "{\"error_code\": 401, \"message\": \"Unauthorized\"}".getBytes(StandardCharsets.UTF_8);
            } else if (exchange.getRequestURI().getPath().equals("/schemas/ids/1")) {
                status = 200;
                body = ("{\"schema\": " + new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(SCHEMA) + "}").getBytes(StandardCharsets.UTF_8);
            } else if (answers.containsKey(exchange.getRequestURI().getPath())) {
                status = 200;
                body = answers.get(exchange.getRequestURI().getPath()).getBytes(StandardCharsets.UTF_8);
            } else {
                status = 404;
                body = "{\"error_code\": 40403}".getBytes(StandardCharsets.UTF_8);
            }
            exchange.sendResponseHeaders(status, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Basic auth as archiver, the password read from a file by Kafka's FileConfigProvider. */
    private SchemaRegistrySettings settings(List<String> urls, String password) throws Exception {
        Path secrets = dir.resolve("registry.properties");
        Files.writeString(secrets, "password=" + password + "\n");
        return new SchemaRegistrySettings(urls, "archiver", "${file:" + secrets + ":password}", null, null, null, null, null, 10,
                Duration.ofSeconds(2), Duration.ofSeconds(5), Map.of("config.providers", "file",
                        "config.providers.file.class", "org.apache.kafka.common.config.provider.FileConfigProvider"));
    }

    @Test
    void credentialsFromAConfigProviderAreSentAndSchemasAreCachedById() throws Exception {
        SchemaRegistryClient client = new SchemaRegistryClient(settings(List.of(start()), PASSWORD));
        assertThat(client.schema(1).avro().getName()).isEqualTo("R");
        assertThat(client.schema(1).id()).isEqualTo(1);
        assertThat(requests.get()).as("the second lookup is served from the cache").isEqualTo(1);
        assertThat(settings(List.of("http://x"), PASSWORD).toString()).doesNotContain(PASSWORD).doesNotContain("registry.properties");
    }

    @Test
    void eachTaskCountsItsOwnLookupsOfTheSharedClientAsHitsRequestsAndErrors() throws Exception {
        SchemaRegistryClient client = new SchemaRegistryClient(settings(List.of(start()), PASSWORD));
        int[] first = new int[3];
        int[] second = new int[3];
        SchemaSource firstTask = client.countedIn(counting(first));
        SchemaSource secondTask = client.countedIn(counting(second));
        firstTask.schema(1);
        secondTask.schema(1);
        secondTask.schema(1);
        assertThatThrownBy(() -> secondTask.schema(404)).isInstanceOf(UndecodablePayload.class);
        assertThat(first).as("the first task: hits, requests, errors").containsExactly(0, 1, 0);
        assertThat(second).as("the second task, served from the cache the first filled").containsExactly(2, 1, 1);
        assertThat(requests.get()).isEqualTo(2);
    }

    private static RegistryLookups counting(int[] counts) {
        return new RegistryLookups() {
            @Override
            public void cacheHit() {
                counts[0]++;
            }

            @Override
            public void requested() {
                counts[1]++;
            }

            @Override
            public void failed() {
                counts[2]++;
            }
        };
    }

    @Test
    void referencedSchemasAreFetchedByTheirSubjectVersionsAndResolvedForEveryType() throws Exception {
        answer("/schemas/ids/7", "AVRO", "{\"type\": \"record\", \"name\": \"Order\", \"namespace\": \"io.shop\", \"fields\": "
                + "[{\"name\": \"ship\", \"type\": \"io.shop.Address\"}, {\"name\": \"bill\", \"type\": \"io.shop.Address\"}]}",
                "io.shop.Address", "address", 1);
        answer("/subjects/address/versions/1", "AVRO", "{\"type\": \"record\", \"name\": \"Address\", \"namespace\": \"io.shop\", \"fields\": "
                + "[{\"name\": \"country\", \"type\": \"io.shop.Country\"}]}", "io.shop.Country", "country", 2);
        answer("/subjects/country/versions/2", "AVRO", "{\"type\": \"enum\", \"name\": \"Country\", \"namespace\": \"io.shop\", \"symbols\": [\"DE\", \"FR\"]}");
        answer("/schemas/ids/8", "PROTOBUF", "syntax = \"proto3\"; package shop; import \"shop/money.proto\"; message Order { Money total = 1; }",
                "shop/money.proto", "money", 1);
        answer("/subjects/money/versions/1", "PROTOBUF", "syntax = \"proto3\"; package shop; message Money { int64 cents = 1; }");
        answer("/schemas/ids/9", "JSON", "{\"$id\": \"https://example.com/order.json\", \"type\": \"object\", \"properties\": "
                + "{\"ship\": {\"$ref\": \"address.json#/$defs/Address\"}}}", "https://example.com/address.json", "address-json", 1);
        answer("/subjects/address-json/versions/1", "JSON", "{\"$defs\": {\"Address\": {\"type\": \"object\", \"properties\": {\"zip\": {\"type\": \"integer\"}}}}}");
        answer("/schemas/ids/10", "AVRO", "{\"type\": \"record\", \"name\": \"Late\", \"fields\": [{\"name\": \"g\", \"type\": \"io.shop.Gone\"}]}",
                "io.shop.Gone", "gone", 3);
        SchemaRegistryClient client = new SchemaRegistryClient(settings(List.of(start()), PASSWORD));

        Schema order = client.schema(7).avro();
        assertThat(order.getField("ship").schema().getField("country").schema().getEnumSymbols()).containsExactly("DE", "FR");
        assertThat(order.getField("bill").schema()).isSameAs(order.getField("ship").schema());
        assertThat(client.schema(8).protoFile().findMessageTypeByName("Order").findFieldByName("total").getMessageType().getFullName()).isEqualTo("shop.Money");
        assertThat(client.schema(9).json().properties().get("ship").properties().get("zip").kind()).isEqualTo(JsonSchemaType.Kind.INTEGER);
        assertThatThrownBy(() -> client.schema(10)).isInstanceOf(UndecodablePayload.class)
                .hasMessageStartingWith("has schema id 10, which references io.shop.Gone (version 3 of subject gone), but the schema registry http://127.0.0.1:")
                .hasMessageEndingWith("answered HTTP 404 (error code 40403)");
    }

    /** What the registry answers at {@code path}: a schema of {@code type} and its references (name, subject, version triples). */
    private void answer(String path, String type, String schema, Object... references) throws Exception {
        ObjectNode body = JSON.createObjectNode().put("schema", schema).put("schemaType", type);
        for (int i = 0; i < references.length; i += 3) {
            body.withArray("references").addObject().put("name", (String) references[i]).put("subject", (String) references[i + 1])
                    .put("version", (Integer) references[i + 2]);
        }
        answers.put(path, JSON.writeValueAsString(body));
    }

    @Test
    void aWrongPasswordIsARefusalThatNamesTheSettingsNotTheSecret() throws Exception {
        SchemaRegistryClient client = new SchemaRegistryClient(settings(List.of(start()), "wrong-" + PASSWORD));
        assertThatThrownBy(() -> client.schema(1))
                .isInstanceOf(UndecodablePayload.class)
                .hasMessageContaining("has schema id 1, but the schema registry http://127.0.0.1:")
                .hasMessageContaining("refused access (HTTP 401): check schema-registry.basic-auth.* or schema-registry.bearer-token")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(PASSWORD));
    }

    @Test
    void aBearerTokenIsSentInsteadOfBasicAuthentication() throws Exception {
        SchemaRegistryClient client = new SchemaRegistryClient(new SchemaRegistrySettings(List.of(start()), null, null, "token-7c1",
                null, null, null, null, 10, Duration.ofSeconds(2), Duration.ofSeconds(5), Map.of()));
        client.schema(1);
        assertThat(authorizations).containsExactly("Bearer token-7c1");
    }

    @Test
    void aRefusedUrlFailsOverToTheNextAndA503IsRetried() throws Exception {
        String live = start();
        unavailableFor.set(2);
        SchemaRegistryClient client = new SchemaRegistryClient(settings(List.of("http://127.0.0.1:1", live), PASSWORD));
        assertThat(client.schema(1).avro().getName()).isEqualTo("R");
        assertThat(requests.get()).as("two 503s, then the schema").isEqualTo(3);
        assertThatThrownBy(() -> client.schema(2)).isInstanceOf(UndecodablePayload.class).hasMessageEndingWith("answered HTTP 404 (error code 40403)");
    }

    @Test
    void aRegistryThatStaysDownIsUnavailableAfterTheRetryTimeoutNotBadInput() throws Exception {
        String live = start();
        unavailableFor.set(Integer.MAX_VALUE);
        SchemaRegistrySettings settings = settings(List.of(live), PASSWORD);
        SchemaRegistryClient client = new SchemaRegistryClient(new SchemaRegistrySettings(settings.urls(), settings.username(), settings.password(),
                null, null, null, null, null, 10, Duration.ofSeconds(1), Duration.ofSeconds(1), settings.configProviders()));
        long began = System.nanoTime();
        assertThatThrownBy(() -> client.schema(1)).isInstanceOf(RegistryUnavailableException.class)
                .hasMessageContaining("did not give schema id 1 within schema-registry.retry.timeout (1 s)");
        assertThat(Duration.ofNanos(System.nanoTime() - began)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void anHttpsRegistryRequiringAClientCertificateIsReachedWithTheTrustAndKeyStores() throws Exception {
        io.archiver.local.TlsMaterial tls = io.archiver.local.TlsMaterial.create(dir.resolve("tls"), "store-secret-4d2", "archiver");
        javax.net.ssl.SSLContext serverContext = javax.net.ssl.SSLContext.getInstance("TLS");
        java.security.KeyStore serverKeys = java.security.KeyStore.getInstance("PKCS12");
        try (java.io.InputStream in = Files.newInputStream(tls.serverKeyStore())) {
            serverKeys.load(in, tls.password().toCharArray());
        }
        javax.net.ssl.KeyManagerFactory keys = javax.net.ssl.KeyManagerFactory.getInstance(javax.net.ssl.KeyManagerFactory.getDefaultAlgorithm());
        keys.init(serverKeys, tls.password().toCharArray());
        java.security.KeyStore trusted = java.security.KeyStore.getInstance("PKCS12");
        try (java.io.InputStream in = Files.newInputStream(tls.trustStore())) {
            trusted.load(in, tls.password().toCharArray());
        }
        javax.net.ssl.TrustManagerFactory trust = javax.net.ssl.TrustManagerFactory.getInstance(javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
        trust.init(trusted);
        serverContext.init(keys.getKeyManagers(), trust.getTrustManagers(), null);
        com.sun.net.httpserver.HttpsServer https = com.sun.net.httpserver.HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        https.setHttpsConfigurator(new com.sun.net.httpserver.HttpsConfigurator(serverContext) {
            @Override
            public void configure(com.sun.net.httpserver.HttpsParameters params) {
                javax.net.ssl.SSLParameters ssl = serverContext.getDefaultSSLParameters();
                ssl.setNeedClientAuth(true);
                params.setSSLParameters(ssl);
            }
        });
        https.createContext("/", exchange -> {
            byte[] body = "[\"orders-value\"]".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        https.start();
        try {
            String url = "https://127.0.0.1:" + https.getAddress().getPort();
            SchemaRegistrySettings mutual = new SchemaRegistrySettings(List.of(url), null, null, null, tls.trustStore().toString(), tls.password(),
                    tls.clientKeyStore().toString(), tls.password(), 10, Duration.ofSeconds(2), Duration.ofSeconds(2), Map.of());
            assertThat(SchemaRegistryClient.check(mutual, Duration.ofSeconds(5))).isEqualTo("answered, listing 1 subject");
            SchemaRegistrySettings noClientCertificate = new SchemaRegistrySettings(List.of(url), null, null, null, tls.trustStore().toString(),
                    tls.password(), null, null, 10, Duration.ofSeconds(2), Duration.ofSeconds(2), Map.of());
            assertThatThrownBy(() -> SchemaRegistryClient.check(noClientCertificate, Duration.ofSeconds(5)))
                    .isInstanceOf(RegistryUnavailableException.class)
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain(tls.password()));
        } finally {
            https.stop(0);
        }
    }
}
