package io.archiver.sink;

import io.archiver.table.TableSettings;
import io.archiver.archive.ArchiveRoot;
import io.archiver.capture.CaptureSettings;
import io.archiver.config.ArchiverConfig;
import io.archiver.config.Mode;
import io.archiver.config.SinkLayout;
import io.archiver.config.TimePartitioning;
import io.archiver.fs.S3EncryptionRequirement;
import io.archiver.format.FileFormats;
import io.archiver.archive.RejectedRecords;
import io.archiver.format.FileFormat;
import io.archiver.fencing.ArchiveLease;
import io.archiver.position.PositionStore;
import io.archiver.record.ArchiveRecord;
import io.archiver.sink.files.ArchiveBucketAssigner;
import io.archiver.sink.files.ArchiveRollingPolicy;
import io.archiver.sink.files.FileSinkInContext;
import io.archiver.sink.files.PartFiles;

import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.streaming.api.functions.sink.filesystem.OutputFileConfig;

import static io.archiver.config.JobOptions.*;
import static io.archiver.config.SinkOptions.*;

/**
 * Builds the two-phase-commit file sinks of the archiver: part files are written in progress,
 * become pending at the checkpoint barrier and are committed (made visible) only when that checkpoint
 * completes, so a restore from a checkpoint or savepoint resumes exactly after the last committed files.
 */
public final class ArchiveSinkFactory {

    /**
     * A part file is closed early for the buffer budget only once it counts this much (its writer and about 150 KB
     * of data): smaller files would cost more in S3 requests and in readers than the heap they free. With 1,000
     * partitions in hour folders, a floor of 80 KB made 11 % more files for no fewer full collections.
     */
    static final long EARLY_CLOSE_MINIMUM = 192 * 1024;

    private ArchiveSinkFactory() {}

    /** The archive sink under {@code sink.path}, keeping the archive's position records. */
    public static ArchiveSink archive(ArchiverConfig config, ArchiveLease lease) {
        FileFormat fileFormat = FileFormats.configured(config);
        BulkWriter.Factory<ArchiveRecord> format = fileFormat.writer(config, config.get(SINK_LAYOUT));
        ArchiveBucketAssigner buckets = new ArchiveBucketAssigner(config.get(SINK_TIME_PARTITIONING), config.get(SINK_LAYOUT));
        ArchiveRollingPolicy rolling = rolling(config);
        PartFiles partFiles = new PartFiles(
                format, buckets, rolling,
                fileFormat.openFileMemory(config), EARLY_CLOSE_MINIMUM);
        return new ArchiveSink(
                build(config, config.sinkPath(), format, buckets, rolling, fileFormat.suffix(config)),
                partFiles,
                new PositionStore(ArchiveRoot.of(config)),
                lease,
                config.get(MODE) == Mode.BATCH,
                config.kafkaClientProperties(),
                config.get(SINK_COMMIT_THREADS),
                CaptureSettings.of(config),
                config.get(SINK_ORPHANED_UPLOADS_ABORT_AFTER),
                TableSettings.of(config).orElse(null));
    }

    /** The dead-letter sink: rejected records as JSON Lines with every payload as base64 bytes. */
    public static FileSinkInContext<ArchiveRecord> deadLetter(ArchiverConfig config) {
        return rejected(config, config.deadLetterPath());
    }

    /** The skip log's sink: the position and reason of each record {@code errors.policy: skip} rejected, as JSON Lines. */
    public static FileSinkInContext<ArchiveRecord> skipLog(ArchiverConfig config) {
        return rejected(config, ArchiveRoot.of(config).skipLog().toString());
    }

    private static FileSinkInContext<ArchiveRecord> rejected(ArchiverConfig config, String path) {
        return build(
                config, path, RejectedRecords.writer(), new ArchiveBucketAssigner(TimePartitioning.NONE, SinkLayout.PER_PARTITION),
                rolling(config), RejectedRecords.suffix());
    }

    private static ArchiveRollingPolicy rolling(ArchiverConfig config) {
        return new ArchiveRollingPolicy(
                config.get(SINK_ROLL_MAX_PART_SIZE).getBytes(),
                config.get(SINK_ROLL_INACTIVITY).toMillis(),
                config.get(SINK_ROLL_INTERVAL).toMillis());
    }

    private static FileSinkInContext<ArchiveRecord> build(
            ArchiverConfig config,
            String path,
            BulkWriter.Factory<ArchiveRecord> writer,
            ArchiveBucketAssigner buckets,
            ArchiveRollingPolicy rolling,
            String suffix) {
        return new FileSinkInContext<>(
                path,
                writer,
                buckets,
                rolling,
                OutputFileConfig.builder().withPartPrefix(config.get(SINK_PART_PREFIX)).withPartSuffix(suffix).build(),
                config.get(SINK_BUCKET_CHECK_INTERVAL).toMillis(),
                config.get(SINK_UPLOAD_THREADS),
                S3EncryptionRequirement.of(config));
    }
}
