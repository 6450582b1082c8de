package io.archiver.fs;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.util.WrappingProxy;
import org.apache.flink.util.WrappingProxyUtil;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.ServerSideEncryption;

import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URI;
import java.util.Locale;
import java.util.Optional;

/**
 * How one S3 bucket is reached as Flink's S3 file system (the {@code s3-fs-hadoop} plugin) reaches it: endpoint,
 * path-style access, region, credentials and server-side encryption, a bucket's own settings over the general
 * ones. Read from the file system that serves a path in this process ({@link #ofFileSystem}: the S3A
 * configuration the plugin was given, on a TaskManager as on the command line) or from Flink's {@code s3.*} keys
 * ({@link #ofFlinkSettings}). Its {@link #client} is the AWS SDK's, for the requests Flink's file system API has
 * no call for (multipart upload listings, conditional writes). Keys are never part of {@link #toString}.
 */
public final class S3BucketAccess {

    private final String bucket;
    /** Null: the AWS endpoint of the region. */
    private final String endpoint;
    private final boolean pathStyle;
    private final String region;
    /** Null (both): the default credential chain (environment, web identity, instance or pod role). */
    private final String accessKey;
    private final String secretKey;
    /** S3A's {@code encryption.algorithm} ({@code SSE-S3}, {@code SSE-KMS}, …), empty for none. */
    private final String encryptionAlgorithm;
    private final String encryptionKey;
    private final S3ClientRetries retries;

    private S3BucketAccess(String bucket, String endpoint, boolean pathStyle, String region, String accessKey,
            String secretKey, String encryptionAlgorithm, String encryptionKey, S3ClientRetries retries) {
        this.bucket = bucket;
        this.endpoint = blankToNull(endpoint);
        this.pathStyle = pathStyle;
        this.region = blankToNull(region);
        this.accessKey = blankToNull(accessKey);
        this.secretKey = blankToNull(secretKey);
        this.encryptionAlgorithm = encryptionAlgorithm == null ? "" : encryptionAlgorithm.trim();
        this.encryptionKey = encryptionKey == null ? "" : encryptionKey.trim();
        this.retries = retries;
    }

    /** The bucket of an {@code s3://}, {@code s3a://} or {@code s3p://} path; null for other file systems. */
    public static String bucketOf(String path) {
        URI uri = URI.create(path);
        return uri.getScheme() != null && uri.getScheme().startsWith("s3") ? uri.getHost() : null;
    }

    /**
     * The settings of the S3A file system that serves {@code path} in this process; empty when {@code path} is not
     * on S3 or its file system is not the {@code s3-fs-hadoop} plugin's (whose configuration cannot be read).
     */
    public static Optional<S3BucketAccess> ofFileSystem(Path path) throws IOException {
        String bucket = bucketOf(path.toUri().toString());
        if (bucket == null) {
            return Optional.empty();
        }
        return s3aSettings(path.getFileSystem()).map(conf -> new S3BucketAccess(
                bucket,
                conf.get(bucket, "endpoint"),
                Boolean.parseBoolean(conf.get(bucket, "path.style.access")),
                conf.get(bucket, "endpoint.region"),
                conf.get(bucket, "access.key"),
                conf.get(bucket, "secret.key"),
                conf.get(bucket, "encryption.algorithm"),
                conf.get(bucket, "encryption.key"),
                S3ClientRetries.of(key -> conf.get(bucket, key))));
    }

    /** The settings Flink's {@code s3.*} keys (and {@code s3.bucket.<bucket>.*}, when {@code bucket} is set) give. */
    public static S3BucketAccess ofFlinkSettings(Configuration s3, String bucket) {
        return new S3BucketAccess(
                bucket,
                setting(s3, bucket, "endpoint", "endpoint"),
                Boolean.parseBoolean(setting(s3, bucket, "path.style.access", "path.style.access")),
                setting(s3, bucket, "region", "endpoint.region"),
                setting(s3, bucket, "access-key", "access.key"),
                setting(s3, bucket, "secret-key", "secret.key"),
                setting(s3, bucket, "encryption.algorithm", "encryption.algorithm"),
                setting(s3, bucket, "encryption.key", "encryption.key"),
                S3ClientRetries.of(key -> setting(s3, bucket, key, key)));
    }

    /** {@code s3.bucket.<bucket>.<bucketKey>} if set, else {@code s3.<key>}. */
    private static String setting(Configuration s3, String bucket, String key, String bucketKey) {
        String general = s3.getString("s3." + key, null);
        return bucket == null ? general : s3.getString("s3.bucket." + bucket + "." + bucketKey, general);
    }

    /** A new client of this bucket's endpoint with its credentials; the caller closes it. */
    public S3Client client() {
        S3ClientBuilder builder = S3Client.builder().httpClient(UrlConnectionHttpClient.builder().build())
                .overrideConfiguration(o -> o.retryStrategy(retries.strategy()));
        if (endpoint != null) {
            builder.endpointOverride(URI.create(endpoint.contains("://") ? endpoint : "https://" + endpoint));
        }
        builder.forcePathStyle(pathStyle);
        builder.region(Region.of(region == null ? "us-east-1" : region));
        AwsCredentialsProvider credentials = accessKey != null && secretKey != null
                ? StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey))
                : DefaultCredentialsProvider.builder().build();
        return builder.credentialsProvider(credentials).build();
    }

    /**
     * {@code put} with the server-side encryption the file system applies to this bucket, so that an object written
     * with the SDK is encrypted as the file system's are.
     *
     * @throws IOException for an encryption the SDK request cannot carry here (customer keys, client-side)
     */
    public PutObjectRequest.Builder encrypted(PutObjectRequest.Builder put) throws IOException {
        switch (encryptionAlgorithm.toUpperCase(Locale.ROOT)) {
            case "", "NONE" -> {
                return put;
            }
            case "SSE-S3" -> {
                return put.serverSideEncryption(ServerSideEncryption.AES256);
            }
            case "SSE-KMS", "DSSE-KMS" -> {
                put.serverSideEncryption(encryptionAlgorithm.toUpperCase(Locale.ROOT).equals("SSE-KMS")
                        ? ServerSideEncryption.AWS_KMS : ServerSideEncryption.AWS_KMS_DSSE);
                return encryptionKey.isEmpty() ? put : put.ssekmsKeyId(encryptionKey);
            }
            default -> throw new IOException("The S3 file system encrypts bucket '" + bucket + "' with " + encryptionAlgorithm
                    + "; the archiver's own S3 requests support SSE-S3, SSE-KMS and DSSE-KMS only.");
        }
    }

    @Override
    public String toString() {
        return "bucket " + bucket + (endpoint == null ? "" : " at " + endpoint)
                + (accessKey == null ? " (credential chain)" : " (access key " + accessKey + ")");
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }

    /**
     * The Hadoop configuration of the S3A file system under Flink's wrapper, read by reflection: the plugin's
     * classes are not this code's (they come from the plugin's class loader).
     */
    @SuppressWarnings("unchecked")
    static Optional<S3aSettings> s3aSettings(FileSystem fs) {
        FileSystem inner = fs instanceof WrappingProxy ? WrappingProxyUtil.stripProxy((WrappingProxy<FileSystem>) fs) : fs;
        try {
            Object hadoop = inner.getClass().getMethod("getHadoopFileSystem").invoke(inner);
            Object conf = hadoop.getClass().getMethod("getConf").invoke(hadoop);
            return Optional.of(new S3aSettings(conf, conf.getClass().getMethod("getTrimmed", String.class, String.class)));
        } catch (ReflectiveOperationException | ClassCastException e) {
            return Optional.empty();
        }
    }

    /** S3A's settings: {@code fs.s3a.bucket.<bucket>.<key>} over {@code fs.s3a.<key>}. */
    record S3aSettings(Object conf, Method getTrimmed) {

        String get(String bucket, String key) {
            try {
                String general = (String) getTrimmed.invoke(conf, "fs.s3a." + key, "");
                return (String) getTrimmed.invoke(conf, "fs.s3a.bucket." + bucket + "." + key, general);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("Cannot read the S3 file system's setting " + key, e);
            }
        }
    }
}
