package io.archiver.cli;

import io.archiver.table.TableArchiveFiles;
import io.archiver.archive.ArchiveRoot;
import io.archiver.archive.ArchiveFiles;
import io.archiver.archive.ArchiveVerifier;
import io.archiver.archive.IncompleteUploads;
import io.archiver.audit.KafkaInspector;
import io.archiver.archive.S3IncompleteUploads;
import io.archiver.config.ArchiverConfig;
import io.archiver.fs.S3BucketAccess;
import io.archiver.fs.S3EncryptionRequirement;
import io.archiver.job.JobLauncher;
import io.archiver.record.PayloadFormats;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import software.amazon.awssdk.services.s3.S3Client;


/**
 * What the commands that read an archive outside a job need: Flink's filesystems (with the cluster's
 * settings from {@code FLINK_CONF_DIR} when set, then the {@code flink.*} options), the S3 API for
 * multipart uploads, and a Kafka client.
 */
final class ArchiveAccess implements AutoCloseable {

    private final ArchiverConfig config;
    private final Configuration flink;
    private final IncompleteUploads uploads;

    ArchiveAccess(ArchiverConfig config) {
        this.config = config;
        this.flink = new Configuration();
        String confDir = System.getenv("FLINK_CONF_DIR");
        if (confDir != null) {
            flink.addAll(GlobalConfiguration.loadConfiguration(confDir));
        }
        flink.addAll(config.flinkSettings());
        S3EncryptionRequirement.fileSystemSettings(config).forEach(flink::setString); // repairs write to the archive
        JobLauncher.initializeFileSystems(flink);
        this.uploads = S3IncompleteUploads.forRoot(config.sinkPath(), flink);
    }

    /** The configured archive's files: through its tables when it has some ({@link TableArchiveFiles}). */
    ArchiveFiles files() {
        return TableArchiveFiles.of(config);
    }

    /** The files in the archive's folders, as listed (whatever the tables say). */
    ArchiveFiles folders() {
        return ArchiveFiles.listed(ArchiveRoot.of(config));
    }

    /** A client of the archive's bucket, with the file system's settings (the caller closes it); null when not in S3. */
    S3Client s3Client() {
        String bucket = S3BucketAccess.bucketOf(config.sinkPath());
        return bucket == null ? null : S3BucketAccess.ofFlinkSettings(flink, bucket).client();
    }

    IncompleteUploads uploads() {
        return uploads;
    }

    ArchiveVerifier verifier() {
        return new ArchiveVerifier(PayloadFormats.of(config), uploads);
    }

    KafkaInspector kafka() {
        return new KafkaInspector(config.kafkaClientProperties());
    }

    @Override
    public void close() {
        if (uploads instanceof AutoCloseable) {
            try {
                ((AutoCloseable) uploads).close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
