package io.archiver.fs;

import io.archiver.config.ArchiverConfig;
import io.archiver.config.S3Encryption;
import io.archiver.config.UserFacingError;

import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.archiver.config.CheckpointOptions.CHECKPOINT_DIR;
import static io.archiver.config.SinkOptions.SINK_S3_ENCRYPTION;
import static io.archiver.config.SinkOptions.SINK_S3_KMS_KEY_ID;

/**
 * The server-side encryption every object the job writes to S3 must get ({@code sink.s3.encryption}, {@code
 * sink.s3.kms-key-id}), and the check that the S3 file system writing a path applies it.
 *
 * <p>Encryption is a setting of Flink's S3 file system (S3A's {@code encryption.algorithm} and {@code
 * encryption.key}): it sends the headers with every PUT, multipart upload start and copy. A file system is
 * configured once per process: the command line that runs a job itself applies the requirement to the buckets
 * the job writes ({@link #fileSystemSettings}), and on a cluster the JobManagers' and TaskManagers' own settings
 * decide. So every sink writer and committer checks, before it writes anything, that the file system serving its
 * path applies the requirement ({@link #verify}), and pre-flight checks the same on the submitting side: a
 * required encryption is never silently left out.
 */
public final class S3EncryptionRequirement implements Serializable {

    private static final long serialVersionUID = 1L;

    private static final String ALGORITHM = "encryption.algorithm";
    private static final String KEY = "encryption.key";

    private final S3Encryption encryption;
    private final String kmsKeyId;

    private S3EncryptionRequirement(S3Encryption encryption, String kmsKeyId) {
        this.encryption = encryption;
        this.kmsKeyId = kmsKeyId;
    }

    /** No requirement: the file system's and the bucket's own settings apply. */
    public static S3EncryptionRequirement none() {
        return new S3EncryptionRequirement(S3Encryption.DEFAULT, null);
    }

    public static S3EncryptionRequirement of(ArchiverConfig config) {
        return new S3EncryptionRequirement(config.get(SINK_S3_ENCRYPTION), config.getOptional(SINK_S3_KMS_KEY_ID).orElse(null));
    }

    /** Whether any encryption is required (not {@code default}). */
    public boolean isRequired() {
        return encryption != S3Encryption.DEFAULT;
    }

    /**
     * Flink settings ({@code s3.bucket.<bucket>.encryption.*}) that make the S3 file system apply the requirement to
     * every bucket {@code config} writes: the archive's, the dead letters' and the checkpoints'. Empty without one.
     */
    public static Map<String, String> fileSystemSettings(ArchiverConfig config) {
        S3EncryptionRequirement required = of(config);
        Map<String, String> settings = new LinkedHashMap<>();
        if (!required.isRequired()) {
            return settings;
        }
        for (String bucket : writtenBuckets(config)) {
            settings.put("s3.bucket." + bucket + "." + ALGORITHM, required.encryption.s3aAlgorithm());
            if (required.kmsKeyId != null) {
                settings.put("s3.bucket." + bucket + "." + KEY, required.kmsKeyId);
            }
        }
        return settings;
    }

    /** The S3 paths {@code config} writes to: the archive, the dead letters and the checkpoints. */
    public static List<String> writtenPaths(ArchiverConfig config) {
        List<String> paths = new ArrayList<>(List.of(config.sinkPath(), config.deadLetterPath()));
        config.getOptional(CHECKPOINT_DIR).ifPresent(paths::add);
        paths.removeIf(path -> S3BucketAccess.bucketOf(path) == null);
        return paths;
    }

    private static List<String> writtenBuckets(ArchiverConfig config) {
        return writtenPaths(config).stream().map(S3BucketAccess::bucketOf).distinct().toList();
    }

    /**
     * Fails, naming the settings to change, unless the file system that writes {@code path} applies this
     * requirement. Nothing to check without a requirement or outside S3.
     */
    public void verify(Path path) throws IOException {
        if (isRequiredFor(path)) {
            verify(path, path.getFileSystem());
        }
    }

    /** {@link #verify(Path)} with {@code fs}, the file system that will write {@code path}. */
    public void verify(Path path, FileSystem fs) throws IOException {
        if (!isRequiredFor(path)) {
            return;
        }
        String bucket = S3BucketAccess.bucketOf(path.toUri().toString());
        Applied applied = applied(fs, bucket);
        if (applied == null) {
            throw new EncryptionNotApplied(String.format(
                    "'%s: %s' is set, but the file system of %s (%s) is not Flink's S3 file system of the s3-fs-hadoop "
                            + "plugin, whose encryption settings the archiver can check; use that plugin (s3:// paths).",
                    SINK_S3_ENCRYPTION.key(), encryption, path, fs.getClass().getSimpleName()));
        }
        boolean algorithmMatches = encryption.s3aAlgorithm().equalsIgnoreCase(applied.algorithm());
        boolean keyMatches = kmsKeyId == null || kmsKeyId.equals(applied.key());
        if (!algorithmMatches || !keyMatches) {
            String wanted = "s3.encryption.algorithm: " + encryption.s3aAlgorithm()
                    + (kmsKeyId == null ? "" : " and s3.encryption.key: " + kmsKeyId);
            throw new EncryptionNotApplied(String.format(
                    "'%s: %s'%s is set, but the S3 file system that writes %s here encrypts with %s. On a cluster, the S3 "
                            + "settings of every JobManager and TaskManager decide: add %s (or s3.bucket.%s.encryption.*) to "
                            + "their configuration (config.yaml, or FLINK_PROPERTIES of docker compose) and restart them; a "
                            + "job cannot set them. Run by the command line, the job applies them itself.",
                    SINK_S3_ENCRYPTION.key(), encryption,
                    kmsKeyId == null ? "" : " with '" + SINK_S3_KMS_KEY_ID.key() + ": " + kmsKeyId + "'",
                    path, applied.describe(), wanted, bucket));
        }
    }

    private boolean isRequiredFor(Path path) {
        return isRequired() && S3BucketAccess.bucketOf(path.toUri().toString()) != null;
    }

    /** What the S3 file system applies to {@code bucket}: its per-bucket settings, else its own; null if unknown. */
    private static Applied applied(FileSystem fs, String bucket) {
        return S3BucketAccess.s3aSettings(fs)
                .map(conf -> new Applied(conf.get(bucket, ALGORITHM), conf.get(bucket, KEY)))
                .orElse(null);
    }

    private record Applied(String algorithm, String key) {
        String describe() {
            if (algorithm.isEmpty()) {
                return "no encryption setting (only the bucket's default encryption, if any)";
            }
            return "encryption.algorithm " + algorithm + (key.isEmpty() ? "" : " and encryption.key " + key);
        }
    }

    /** The file system does not apply the encryption the configuration requires. */
    public static final class EncryptionNotApplied extends IOException implements UserFacingError {
        private static final long serialVersionUID = 1L;

        EncryptionNotApplied(String message) {
            super(message);
        }
    }
}
