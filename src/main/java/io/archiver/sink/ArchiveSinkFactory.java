package io.archiver.sink;

import io.archiver.config.ArchiveFormat;
import io.archiver.config.ArchiverConfig;
import io.archiver.config.JsonCompression;
import io.archiver.config.Mode;
import io.archiver.config.TimePartitioning;
import io.archiver.format.EnvelopeParquetBuilder;
import io.archiver.format.EnvelopeParquetWriterFactory;
import io.archiver.format.JsonLinesWriterFactory;
import io.archiver.position.ArchiveLease;
import io.archiver.position.PositionStore;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;

import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.streaming.api.functions.sink.filesystem.OutputFileConfig;

import static io.archiver.config.ArchiverOptions.*;

/**
 * Builds the two-phase-commit file sinks of the archiver: part files are written in progress,
 * become pending at the checkpoint barrier and are committed (made visible) only when that checkpoint
 * completes, so a restore from a checkpoint or savepoint resumes exactly after the last committed files.
 */
public final class ArchiveSinkFactory {

    private ArchiveSinkFactory() {}

    /** The archive sink under {@code sink.path}, keeping the archive's position records. */
    public static ArchiveSink archive(ArchiverConfig config, ArchiveLease lease) {
        BulkWriter.Factory<ArchiveRecord> writer = writerFactory(config);
        TimePartitioning time = config.get(SINK_TIME_PARTITIONING);
        OpenFileMemory memory = new OpenFileMemory(
                config.get(SINK_PARQUET_BUFFER_MEMORY).getBytes(), 2 * EnvelopeParquetWriterFactory.OPEN_FILE_HEAP);
        StatsTrackingWriterFactory tracking = new StatsTrackingWriterFactory(writer, time, memory);
        FileSinkInContext<ArchiveRecord> files =
                build(config, config.sinkPath(), tracking, time, suffix(config), memory);
        return new ArchiveSink(files, tracking, new PositionStore(config.sinkPath()), lease, config.get(MODE) == Mode.BATCH,
                new LogEndProbe(config.kafkaClientProperties()), config.get(SINK_COMMIT_THREADS));
    }

    /** The writer of archive files in the configured format, compression and payload formats. */
    public static BulkWriter.Factory<ArchiveRecord> writerFactory(ArchiverConfig config) {
        JsonCompression jsonCompression = config.get(SINK_JSONL_COMPRESSION);
        PayloadFormats formats = PayloadFormats.of(config);
        return config.get(SINK_FORMAT) == ArchiveFormat.PARQUET
                ? new EnvelopeParquetWriterFactory(
                        new EnvelopeParquetBuilder(
                                formats,
                                config.get(SINK_PARQUET_COMPRESSION),
                                config.get(SINK_PARQUET_ZSTD_LEVEL),
                                config.get(SINK_PARQUET_ROW_GROUP_SIZE).getBytes(),
                                (int) config.get(SINK_PARQUET_PAGE_SIZE).getBytes()))
                : new JsonLinesWriterFactory(formats, jsonCompression,
                        jsonCompression == JsonCompression.ZSTD ? config.get(SINK_JSONL_ZSTD_LEVEL) : config.get(SINK_JSONL_GZIP_LEVEL));
    }

    /** The file name suffix of the configured format and compression. */
    public static String suffix(ArchiverConfig config) {
        return ArchiveLayout.suffix(config.get(SINK_FORMAT), config.get(SINK_JSONL_COMPRESSION));
    }

    /** The dead-letter sink: rejected records as JSON Lines with every payload as base64 bytes. */
    public static FileSinkInContext<ArchiveRecord> deadLetter(ArchiverConfig config) {
        return build(
                config, config.deadLetterPath(), new JsonLinesWriterFactory(PayloadFormats.BYTES, JsonCompression.NONE, 0),
                TimePartitioning.NONE, ArchiveLayout.suffix(ArchiveFormat.JSONL, JsonCompression.NONE), new OpenFileMemory(0, 0));
    }

    private static FileSinkInContext<ArchiveRecord> build(
            ArchiverConfig config,
            String path,
            BulkWriter.Factory<ArchiveRecord> writer,
            TimePartitioning time,
            String suffix,
            OpenFileMemory memory) {
        return new FileSinkInContext<>(
                path,
                writer,
                new ArchiveBucketAssigner(time),
                new ArchiveRollingPolicy(
                        config.get(SINK_ROLL_MAX_PART_SIZE).getBytes(),
                        config.get(SINK_ROLL_INACTIVITY).toMillis(),
                        config.get(SINK_ROLL_INTERVAL).toMillis(),
                        memory),
                OutputFileConfig.builder().withPartPrefix(config.get(SINK_PART_PREFIX)).withPartSuffix(suffix).build(),
                config.get(SINK_BUCKET_CHECK_INTERVAL).toMillis(),
                config.get(SINK_UPLOAD_THREADS));
    }
}
