package io.archiver.registry;

import io.archiver.config.SecretReferences;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reads schemas by id from a registry's Confluent-compatible REST API ({@code GET /schemas/ids/{id}}), keeping the
 * most recently used ones in a bounded cache: a schema id never changes what it names, so a cached schema is never
 * stale. URLs are tried in order (failover); a registry that is down or answers 5xx is retried with backoff until
 * {@code schema-registry.retry.timeout}. One client per settings in a JVM ({@link #shared}), used by every task.
 *
 * <p>A small client over the documented API rather than a vendor's: Confluent's client is not on Maven Central,
 * Apicurio's speaks its own API first and brings a large dependency tree; the archiver needs two read-only calls
 * (a schema by id with the subject versions it references, a subject's latest version).
 */
public final class SchemaRegistryClient implements SchemaSource {

    private static final Logger LOG = LoggerFactory.getLogger(SchemaRegistryClient.class);
    private static final Map<SchemaRegistrySettings, SchemaRegistryClient> SHARED = new ConcurrentHashMap<>();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration FIRST_BACKOFF = Duration.ofMillis(200);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(5);

    private final SchemaRegistrySettings settings;
    private final HttpClient http;
    private final String authorization;
    private final Map<Integer, RegisteredSchema> cache;

    SchemaRegistryClient(SchemaRegistrySettings settings) {
        this.settings = settings;
        Map<String, String> secrets = resolve(settings);
        this.authorization = secrets.get("username") != null
                ? "Basic " + Base64.getEncoder().encodeToString((secrets.get("username") + ":" + secrets.get("password")).getBytes(StandardCharsets.UTF_8))
                : secrets.get("token") != null ? "Bearer " + secrets.get("token") : null;
        HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(settings.requestTimeout());
        if (settings.trustStore() != null || settings.keyStore() != null) {
            builder.sslContext(sslContext(settings, secrets));
        }
        this.http = builder.build();
        int max = settings.cacheSize();
        this.cache = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Integer, RegisteredSchema> eldest) {
                return size() > max;
            }
        };
    }

    /** The JVM's client for {@code settings}: every task of a TaskManager shares its cache. */
    public static SchemaRegistryClient shared(SchemaRegistrySettings settings) {
        return SHARED.computeIfAbsent(settings, SchemaRegistryClient::new);
    }

    /**
     * The schema registered under {@code id}, from the cache or the registry.
     *
     * @throws UndecodablePayload if the registry has no such schema, refuses access, or holds a schema that does not parse
     * @throws RegistryUnavailableException if no URL answered within the retry timeout
     */
    @Override
    public RegisteredSchema schema(int id) throws UndecodablePayload, RegistryUnavailableException {
        return schema(id, RegistryLookups.NONE);
    }

    /** This client's schemas, each lookup told to {@code lookups} (one task's count of what it asked). */
    public SchemaSource countedIn(RegistryLookups lookups) {
        return new SchemaSource() {
            @Override
            public RegisteredSchema schema(int id) throws UndecodablePayload, RegistryUnavailableException {
                return SchemaRegistryClient.this.schema(id, lookups);
            }

            @Override
            public OptionalInt latestId(String subject) throws RegistryUnavailableException {
                return SchemaRegistryClient.this.latestId(subject);
            }
        };
    }

    private RegisteredSchema schema(int id, RegistryLookups lookups) throws UndecodablePayload, RegistryUnavailableException {
        synchronized (cache) {
            RegisteredSchema cached = cache.get(id);
            if (cached != null) {
                lookups.cacheHit();
                return cached;
            }
        }
        lookups.requested();
        try {
            RegisteredSchema schema = fetch(id);
            synchronized (cache) {
                cache.put(id, schema);
            }
            return schema;
        } catch (UndecodablePayload | RegistryUnavailableException | RuntimeException e) {
            lookups.failed();
            throw e;
        }
    }

    private RegisteredSchema fetch(int id) throws UndecodablePayload, RegistryUnavailableException {
        JsonNode body;
        try {
            body = get("/schemas/ids/" + id, "schema id " + id);
        } catch (UndecodablePayload e) {
            throw new UndecodablePayload("has schema id " + id + ", but " + e.getMessage());
        }
        String type = body.path("schemaType").asText(RegisteredSchema.AVRO);
        Map<String, String> references = new LinkedHashMap<>();
        referenced(body.path("references"), id, references, new HashSet<>());
        RegisteredSchema schema;
        String text = body.path("schema").asText();
        if (type.equals(RegisteredSchema.AVRO)) {
            try {
                // the named types of the references first, each after those it uses: the schema's own names resolve to them
                Schema.Parser parser = new Schema.Parser();
                for (String referenced : references.values()) {
                    parser.parse(referenced);
                }
                schema = new RegisteredSchema(id, parser.parse(text));
            } catch (SchemaParseException e) {
                throw new UndecodablePayload("has schema id " + id + ", which is not a valid Avro schema (" + e.getMessage() + ")");
            }
        } else if (type.equals(RegisteredSchema.JSON)) {
            try {
                Map<String, JsonNode> documents = new LinkedHashMap<>();
                for (Map.Entry<String, String> referenced : references.entrySet()) {
                    documents.put(referenced.getKey(), JSON.readTree(referenced.getValue()));
                }
                schema = new RegisteredSchema(id, JsonSchemaType.of(JSON.readTree(text), documents));
            } catch (IOException | IllegalArgumentException e) {
                throw new UndecodablePayload("has schema id " + id + ", a JSON Schema the archiver cannot use (" + e.getMessage() + ")");
            }
        } else if (type.equals(RegisteredSchema.PROTOBUF)) {
            try {
                schema = new RegisteredSchema(id, ProtoSchemaParser.parse(text, references));
            } catch (IllegalArgumentException e) {
                throw new UndecodablePayload("has schema id " + id + ", a Protobuf schema the archiver cannot use (" + e.getMessage() + ")");
            }
        } else {
            throw new UndecodablePayload("has schema id " + id + ", of type " + type + ", which the archiver does not decode");
        }
        return schema;
    }

    /**
     * Adds to {@code into} the text of every schema {@code references} (a registry answer's {@code references}: name,
     * subject, version) names, directly or through the references of those, each once by its name and after those it
     * references itself: the order in which they can be parsed. Asked of the registry as
     * {@code GET /subjects/{subject}/versions/{version}}; not cached apart, as the schema that needs them is.
     */
    private void referenced(JsonNode references, int id, Map<String, String> into, Set<String> open)
            throws UndecodablePayload, RegistryUnavailableException {
        for (JsonNode reference : references) {
            String name = reference.path("name").asText();
            String subject = reference.path("subject").asText();
            int number = reference.path("version").asInt(-1);
            String version = number < 0 ? "latest" : Integer.toString(number);
            if (into.containsKey(name)) {
                continue;
            }
            if (!open.add(subject + "/" + version)) {
                throw new UndecodablePayload("has schema id " + id + ", whose references form a cycle through version " + version + " of subject " + subject);
            }
            JsonNode body;
            try {
                body = get("/subjects/" + URLEncoder.encode(subject, StandardCharsets.UTF_8) + "/versions/" + version,
                        "version " + version + " of subject " + subject);
            } catch (UndecodablePayload e) {
                throw new UndecodablePayload("has schema id " + id + ", which references " + name + " (version " + version + " of subject "
                        + subject + "), but " + e.getMessage());
            }
            referenced(body.path("references"), id, into, open);
            open.remove(subject + "/" + version);
            into.put(name, body.path("schema").asText());
        }
    }

    /**
     * The id of the newest version of {@code subject} ({@code GET /subjects/{subject}/versions/latest}); empty when
     * the registry has no such subject or refuses to say. Not cached: asked when a writer first meets a topic.
     */
    @Override
    public OptionalInt latestId(String subject) throws RegistryUnavailableException {
        try {
            JsonNode body = get("/subjects/" + URLEncoder.encode(subject, StandardCharsets.UTF_8) + "/versions/latest", "the latest version of subject " + subject);
            return body.path("id").isInt() ? OptionalInt.of(body.get("id").intValue()) : OptionalInt.empty();
        } catch (UndecodablePayload e) {
            LOG.debug("No latest version of subject {}: {}", subject, e.getMessage());
            return OptionalInt.empty();
        }
    }

    /**
     * Asks every URL of {@code settings} once for the registry's subjects, each within {@code within} (pre-flight):
     * what the first that answered said, e.g. "answered, listing 12 subjects".
     *
     * @throws UndecodablePayload if a registry answered with a refusal (401, 403, 404: a wrong URL or credentials)
     * @throws RegistryUnavailableException if none answered
     */
    public static String check(SchemaRegistrySettings settings, Duration within) throws UndecodablePayload, RegistryUnavailableException {
        Duration request = settings.requestTimeout().compareTo(within) < 0 ? settings.requestTimeout() : within;
        SchemaRegistryClient once = new SchemaRegistryClient(new SchemaRegistrySettings(settings.urls(), settings.username(), settings.password(),
                settings.bearerToken(), settings.trustStore(), settings.trustStorePassword(), settings.keyStore(), settings.keyStorePassword(),
                1, request, Duration.ZERO, settings.configProviders()));
        int subjects = once.get("/subjects", "its list of subjects").size();
        return "answered, listing " + subjects + (subjects == 1 ? " subject" : " subjects");
    }

    private JsonNode get(String path, String what) throws UndecodablePayload, RegistryUnavailableException {
        long deadline = System.nanoTime() + settings.retryTimeout().toNanos();
        Duration backoff = FIRST_BACKOFF;
        Exception last = null;
        while (true) {
            for (String url : settings.urls()) {
                HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url + path))
                        .timeout(settings.requestTimeout())
                        .header("Accept", "application/vnd.schemaregistry.v1+json, application/json");
                if (authorization != null) {
                    request.header("Authorization", authorization);
                }
                try {
                    HttpResponse<byte[]> response = http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
                    int status = response.statusCode();
                    if (status == 200) {
                        return JSON.readTree(response.body());
                    }
                    if (status == 401 || status == 403) {
                        throw new UndecodablePayload("the schema registry " + url + " refused access (HTTP " + status
                                + "): check schema-registry.basic-auth.* or schema-registry.bearer-token");
                    }
                    if (status == 404) {
                        throw new UndecodablePayload("the schema registry " + url + " answered HTTP 404" + errorCode(response.body()));
                    }
                    last = new IOException(url + " answered HTTP " + status + errorCode(response.body()));
                    if (status < 500 && status != 429) {
                        throw new UndecodablePayload("the schema registry " + url + " answered HTTP " + status + errorCode(response.body()));
                    }
                } catch (IOException e) {
                    last = e;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new RegistryUnavailableException("interrupted while asking the schema registry for " + what, e);
                }
            }
            if (System.nanoTime() + backoff.toNanos() > deadline) {
                throw new RegistryUnavailableException("the schema registry (" + String.join(", ", settings.urls()) + ") did not give "
                        + what + " within schema-registry.retry.timeout (" + settings.retryTimeout().toSeconds() + " s): " + describe(last), last);
            }
            LOG.warn("The schema registry did not give {} ({}); trying again in {} ms", what, describe(last), backoff.toMillis());
            try {
                Thread.sleep(backoff.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RegistryUnavailableException("interrupted while waiting for the schema registry", e);
            }
            backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
        }
    }

    private static String describe(Exception e) {
        return e == null ? "no answer" : e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }

    /** The registry's own error code (e.g. 40403 schema not found), never the body's text as a whole. */
    private static String errorCode(byte[] body) {
        try {
            JsonNode error = JSON.readTree(body);
            return error.has("error_code") ? " (error code " + error.get("error_code").asInt() + ")" : "";
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    /** The secrets with {@code ${provider:path:key}} references resolved by the Kafka config providers. */
    private static Map<String, String> resolve(SchemaRegistrySettings settings) {
        Map<String, String> secrets = new HashMap<>();
        secrets.put("username", settings.username());
        secrets.put("password", settings.password());
        secrets.put("token", settings.bearerToken());
        secrets.put("truststore.password", settings.trustStorePassword());
        secrets.put("keystore.password", settings.keyStorePassword());
        return SecretReferences.resolve(settings.configProviders(), secrets);
    }

    private static SSLContext sslContext(SchemaRegistrySettings settings, Map<String, String> secrets) {
        try {
            TrustManagerFactory trust = null;
            if (settings.trustStore() != null) {
                trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                trust.init(load(settings.trustStore(), secrets.get("truststore.password")));
            }
            KeyManagerFactory keys = null;
            if (settings.keyStore() != null) {
                String password = secrets.get("keystore.password");
                keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                keys.init(load(settings.keyStore(), password), password == null ? null : password.toCharArray());
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys == null ? null : keys.getKeyManagers(), trust == null ? null : trust.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException("The schema registry's key or trust store cannot be loaded: " + e.getMessage(), e);
        }
    }

    /** A PKCS12 or JKS store (Java's keystore type detection reads both). */
    private static KeyStore load(String location, String password) throws GeneralSecurityException, IOException {
        try (InputStream in = Files.newInputStream(Path.of(location))) {
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(in, password == null ? null : password.toCharArray());
            return store;
        }
    }
}
