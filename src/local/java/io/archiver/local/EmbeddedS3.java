package io.archiver.local;

import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.nio2blob.FilesystemNio2BlobStore;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * A real S3-compatible server (S3Proxy, filesystem backend, multipart uploads supported) on 127.0.0.1,
 * running in this JVM. Objects are plain files under {@code dataDir/<bucket>/<key>}, so the archive can
 * be inspected on disk too.
 */
public final class EmbeddedS3 implements AutoCloseable {

    public static final String ACCESS_KEY = "local-access-key";
    public static final String SECRET_KEY = "local-secret-key";

    private final Map<String, URI> bucketEndpoints = new java.util.concurrent.ConcurrentHashMap<>();
    private final BlobStore store;
    private final Path dataDir;
    private final TlsMaterial tls;
    private final int port;
    private volatile S3Proxy proxy;

    private EmbeddedS3(BlobStore store, Path dataDir, TlsMaterial tls, int port) {
        this.store = store;
        this.dataDir = dataDir;
        this.tls = tls;
        this.port = port;
    }

    /** Starts the server on {@code port} (0 picks a free one) storing objects under {@code dataDir}. */
    public static EmbeddedS3 start(Path dataDir, int port) throws Exception {
        return start(dataDir, port, UnaryOperator.identity());
    }

    /**
     * Like {@link #start(Path, int)}, serving through {@code decorator} (tests use it to inject faults on
     * the real HTTP path).
     */
    public static EmbeddedS3 start(Path dataDir, int port, UnaryOperator<BlobStore> decorator) throws Exception {
        return start(dataDir, port, null, decorator);
    }

    /**
     * Like {@link #start(Path, int, UnaryOperator)}, serving HTTPS only, with the server certificate of {@code tls}
     * (clients must trust its CA: {@link TlsMaterial#trustStore()}).
     */
    public static EmbeddedS3 startTls(Path dataDir, TlsMaterial tls, UnaryOperator<BlobStore> decorator) throws Exception {
        return start(dataDir, 0, tls, decorator);
    }

    /** Serving HTTPS with {@code tls} on {@code port} (0: a free one), or HTTP when {@code tls} is null. */
    public static EmbeddedS3 start(Path dataDir, int port, TlsMaterial tls, UnaryOperator<BlobStore> decorator) throws Exception {
        Files.createDirectories(dataDir);
        BlobStore store = decorator.apply(new FilesystemNio2BlobStore(dataDir.toAbsolutePath().toString()));
        S3Proxy proxy = startProxy(store, port, tls);
        EmbeddedS3 s3 = new EmbeddedS3(store, dataDir, tls, tls == null ? proxy.getPort() : proxy.getSecurePort());
        s3.proxy = proxy;
        return s3;
    }

    private static S3Proxy startProxy(BlobStore store, int port, TlsMaterial tls) throws Exception {
        S3Proxy.Builder builder = S3Proxy.builder()
                .blobStore(store)
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY);
        if (tls == null) {
            builder.endpoint(URI.create("http://127.0.0.1:" + port));
        } else {
            builder.secureEndpoint(URI.create("https://127.0.0.1:" + port))
                    .keyStore(tls.serverKeyStore().toString(), tls.password());
        }
        S3Proxy proxy = builder.build();
        proxy.start();
        Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
        while (!"STARTED".equals(proxy.getState())) {
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException("S3Proxy did not start within 30 s (state " + proxy.getState() + ")");
            }
            Thread.onSpinWait();
        }
        return proxy;
    }

    /** Stops the server: connections are refused until {@link #startAgain()}. Stored objects are kept. */
    public void stop() throws Exception {
        proxy.stop();
    }

    /** Starts the server again on the same port with the same objects. */
    public void startAgain() throws Exception {
        proxy = startProxy(store, port, tls);
    }

    public URI endpoint() {
        return URI.create((tls == null ? "http" : "https") + "://127.0.0.1:" + port);
    }

    public Path dataDir() {
        return dataDir;
    }

    public void createBucket(String bucket) {
        if (!store.containerExists(bucket)) {
            store.createContainer(bucket);
        }
    }

    /**
     * Requests for {@code bucket} go to {@code endpoint} (S3A's per-bucket endpoint), e.g. a proxy in front of this server
     * that injects network faults; {@link #flinkSettings} carries it from now on.
     */
    public void routeBucket(String bucket, URI endpoint) {
        bucketEndpoints.put(bucket, endpoint);
    }

    /**
     * The Flink settings ({@code s3.*}) that point Flink's S3 filesystem at this server, with directory markers
     * kept as {@code conf/flink/config.yaml} has them, and the buckets {@linkplain #routeBucket routed} elsewhere.
     */
    public Map<String, String> flinkSettings() {
        Map<String, String> s = new LinkedHashMap<>();
        bucketEndpoints.forEach((bucket, endpoint) -> s.put("s3.bucket." + bucket + ".endpoint", endpoint.toString()));
        s.put("s3.endpoint", endpoint().toString());
        s.put("s3.path.style.access", "true");
        s.put("s3.connection.ssl.enabled", Boolean.toString(tls != null));
        s.put("s3.access-key", ACCESS_KEY);
        s.put("s3.secret-key", SECRET_KEY);
        s.put("s3.directory.marker.retention", "keep");
        return s;
    }

    @Override
    public void close() throws Exception {
        proxy.stop();
    }
}
