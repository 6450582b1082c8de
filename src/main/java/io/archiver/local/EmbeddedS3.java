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

/**
 * A real S3-compatible server (S3Proxy, filesystem backend, multipart uploads supported) on 127.0.0.1,
 * running in this JVM. Objects are plain files under {@code dataDir/<bucket>/<key>}, so the archive can
 * be inspected on disk too.
 */
public final class EmbeddedS3 implements AutoCloseable {

    public static final String ACCESS_KEY = "local-access-key";
    public static final String SECRET_KEY = "local-secret-key";

    private final S3Proxy proxy;
    private final BlobStore store;
    private final Path dataDir;

    private EmbeddedS3(S3Proxy proxy, BlobStore store, Path dataDir) {
        this.proxy = proxy;
        this.store = store;
        this.dataDir = dataDir;
    }

    /** Starts the server on {@code port} (0 picks a free one) storing objects under {@code dataDir}. */
    public static EmbeddedS3 start(Path dataDir, int port) throws Exception {
        Files.createDirectories(dataDir);
        BlobStore store = new FilesystemNio2BlobStore(dataDir.toAbsolutePath().toString());
        S3Proxy proxy =
                S3Proxy.builder()
                        .blobStore(store)
                        .endpoint(URI.create("http://127.0.0.1:" + port))
                        .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
                        .build();
        proxy.start();
        Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
        while (!"STARTED".equals(proxy.getState())) {
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException("S3Proxy did not start within 30 s (state " + proxy.getState() + ")");
            }
            Thread.onSpinWait();
        }
        return new EmbeddedS3(proxy, store, dataDir);
    }

    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + proxy.getPort());
    }

    public Path dataDir() {
        return dataDir;
    }

    public void createBucket(String bucket) {
        if (!store.containerExists(bucket)) {
            store.createContainer(bucket);
        }
    }

    /** The Flink settings ({@code s3.*}) that point Flink's S3 filesystem at this server. */
    public Map<String, String> flinkSettings() {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("s3.endpoint", endpoint().toString());
        s.put("s3.path.style.access", "true");
        s.put("s3.connection.ssl.enabled", "false");
        s.put("s3.access-key", ACCESS_KEY);
        s.put("s3.secret-key", SECRET_KEY);
        return s;
    }

    @Override
    public void close() throws Exception {
        proxy.stop();
    }
}
