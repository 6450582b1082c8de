package io.archiver.archive;

import java.util.List;
import java.util.Collections;
import java.util.ArrayList;
import java.io.IOException;
import java.io.FileNotFoundException;
import org.apache.flink.core.fs.FileStatus;
import io.archiver.config.ArchiverConfig;
import io.archiver.fs.S3BucketAccess;

import org.apache.flink.core.fs.Path;

import java.io.Serializable;
import java.util.UUID;

/**
 * Where an archive lives ({@code sink.path}) and the name of every object in it, so that no other class joins
 * paths under a root by hand:
 * <ul>
 *   <li>the data files, in the folders of the {@link ArchiveLayout} ({@code topic=…/…}, {@link #folder});</li>
 *   <li>the archiver's own objects under {@value #METADATA}/: the {@linkplain #lease() lease}, the
 *       {@linkplain #subtaskPositions() position records} (and the {@linkplain #perPartitionPositions() older
 *       per-partition ones}), the {@linkplain #skipLog() skip log}, the {@linkplain #erasureLog() erasure log} and
 *       {@linkplain #erasures() requests}, the captured {@linkplain #groupOffsets() group
 *       offsets} and {@linkplain #topicSettings() topic settings}, the {@linkplain #topicIdentities() topics' ids}, the {@linkplain #restoreLedgers() restore
 *       ledgers' identities} (and the {@linkplain #legacyRestoreStarts() start objects of 0.1.x restores}), the
 *       Iceberg {@linkplain #tables() tables' metadata} and the pre-flight {@linkplain #writeProbe() write probes};</li>
 *   <li>the dead letters' default place ({@link ArchiverConfig#defaultDeadLetterPath}).</li>
 * </ul>
 * Names starting with {@code _} are never data: the archive's readers and query engines skip them.
 */
public final class ArchiveRoot implements Serializable {

    private static final String TOPIC_FOLDER = "topic=";

    private static final long serialVersionUID = 1L;

    /** The folder of the archiver's own objects. */
    public static final String METADATA = "_archiver";

    private final String uri;

    private ArchiveRoot(String uri) {
        this.uri = uri;
    }

    /** The archive at {@code uri} ({@code s3://bucket/prefix}, {@code file:///…}); a trailing slash is dropped. */
    public static ArchiveRoot of(String uri) {
        String u = uri;
        while (u.endsWith("/") && !u.endsWith("//")) {
            u = u.substring(0, u.length() - 1);
        }
        return new ArchiveRoot(u);
    }

    /** The archive of a configuration ({@code sink.path}). */
    public static ArchiveRoot of(ArchiverConfig config) {
        return of(config.sinkPath());
    }

    /** The root as configured, without a trailing slash. */
    public String uri() {
        return uri;
    }

    public Path path() {
        return new Path(uri);
    }

    /** The bucket of an archive in S3 ({@code s3://bucket/a/b}: {@code bucket}); null on other file systems. */
    public String bucket() {
        return S3BucketAccess.bucketOf(uri);
    }

    /** The keys of the archive's objects start with this in its bucket: {@code s3://bucket/a/b} gives {@code a/b/}, a bucket's root "". */
    public String keyPrefix() {
        String p = java.net.URI.create(uri).getPath();
        String path = p == null ? "" : p.replaceFirst("^/", "");
        return path.isEmpty() || path.endsWith("/") ? path : path + "/";
    }

    /** The topics the archive has folders of ({@code topic=<name>}), by one listing of the root. */
    public List<String> topics() throws IOException {
        List<String> topics = new ArrayList<>();
        FileStatus[] entries;
        try {
            entries = path().getFileSystem().listStatus(path());
        } catch (FileNotFoundException e) {
            return topics;
        }
        for (FileStatus entry : entries == null ? new FileStatus[0] : entries) {
            String name = entry.getPath().getName();
            if (entry.isDir() && name.startsWith(TOPIC_FOLDER)) {
                topics.add(name.substring(TOPIC_FOLDER.length()));
            }
        }
        Collections.sort(topics);
        return topics;
    }

    /** The data folder of a bucket of the {@link ArchiveLayout} ({@code topic=t/partition=p/date=…}). */
    public String folder(String bucket) {
        return uri + "/" + bucket;
    }

    /** The lease naming the one job that writes the archive. */
    public Path lease() {
        return metadata("lease.json");
    }

    /** The folder of the position records, one object per committer subtask. */
    public Path subtaskPositions() {
        return metadata("subtask-positions");
    }

    /** The folder of the position records of versions before 0.2, one object per partition. */
    public Path perPartitionPositions() {
        return metadata("positions");
    }

    /** The skip log: where skipped records are recorded (positions and reasons, no payload). */
    public Path skipLog() {
        return metadata("skipped");
    }

    /**
     * The erasure log: the positions of the records erased (no key, no payload), as the skip log's entries, one file
     * per erasure and partition.
     */
    public Path erasureLog() {
        return metadata("erased");
    }

    /** The erasure requests: one object per erasure, what was asked (the keys as keyed hashes) and what was erased. */
    public Path erasures() {
        return metadata("erasures");
    }

    /** The folder of captured consumer group offsets. */
    public Path groupOffsets() {
        return metadata("groups");
    }

    /** The folder of captured topic settings. */
    public Path topicSettings() {
        return metadata("topics");
    }

    /** The map from each restore target's ledger topic to its topic id. */
    public Path restoreLedgers() {
        return metadata("restore-ledgers.json");
    }

    /** The folder of the start objects restores of 0.1.x wrote. */
    public Path legacyRestoreStarts() {
        return metadata("restores");
    }

    /** The ids of the Kafka topics the archive holds, by name ({@code io.archiver.capture.TopicIdentities}). */
    public Path topicIdentities() {
        return metadata("topic-ids.json");
    }

    /** Where a JDBC catalog keeps the metadata of the archive's Iceberg tables unless {@code table.catalog.warehouse} says otherwise. */
    public Path tables() {
        return metadata("tables");
    }

    /** A new object name for the pre-flight check's test write. */
    public Path writeProbe() {
        return metadata("preflight-" + UUID.randomUUID());
    }

    /** The dead letters' place when {@code errors.dead-letter.path} is not set. */
    public String defaultDeadLetters() {
        return ArchiverConfig.defaultDeadLetterPath(uri);
    }

    private Path metadata(String name) {
        return new Path(uri + "/" + METADATA + "/" + name);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ArchiveRoot other && uri.equals(other.uri);
    }

    @Override
    public int hashCode() {
        return uri.hashCode();
    }

    @Override
    public String toString() {
        return uri;
    }
}
