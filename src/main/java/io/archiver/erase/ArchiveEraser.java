package io.archiver.erase;

import io.archiver.archive.ArchiveFile;
import io.archiver.archive.ArchiveFileReader;
import io.archiver.archive.ArchiveFiles;
import io.archiver.archive.ArchiveRoot;
import io.archiver.config.ArchiverConfig;
import io.archiver.format.FileFormat;
import io.archiver.format.FileFormats;
import io.archiver.position.PositionRecord;
import io.archiver.position.PositionRecovery;
import io.archiver.record.PayloadFormats;
import io.archiver.table.TableArchiveFiles;

import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Erases records from an archive: finds the files holding the records an {@link ErasureRequest} selects (the archive's
 * files as its readers find them, and the dead letters), records their positions in the {@link ErasureLog}, then
 * rewrites each file in place without them ({@link FileFormat#copyWithout}: every other record as it was).
 *
 * <p>A file is replaced whole: on S3 the new object replaces the old when its upload completes (a reader sees the
 * one or the other), on a local file system through a rename. A crash leaves each file as before or as after;
 * running the erasure again finishes it, and erasing what is gone already finds nothing. The position records keep
 * naming the same files; a job restored from a checkpoint or savepoint taken before commits its last files again,
 * and finds those an erasure rewrote since committed ({@link ErasureLog#rewrittenFiles()}), whatever their length now.
 */
public final class ArchiveEraser {

    private final ArchiverConfig config;
    private final ArchiveRoot root;

    public ArchiveEraser(ArchiverConfig config) {
        this.config = config;
        this.root = ArchiveRoot.of(config);
    }

    /** Finds what {@code request} erases now. */
    public ErasurePlan plan(ErasureRequest request) throws IOException {
        List<ErasurePlan.FileErasure> found = new ArrayList<>();
        ArchiveFileReader reader = new ArchiveFileReader(PayloadFormats.of(config));
        for (Map.Entry<String, List<ArchiveFile>> file : ArchiveFile.byPath(TableArchiveFiles.of(config).list().committed()).entrySet()) {
            find(file.getValue().get(0), false, reader, request, found);
        }
        ArchiveFileReader deadLetters = new ArchiveFileReader(PayloadFormats.BYTES);
        for (ArchiveFile file : ArchiveFiles.listed(ArchiveRoot.of(config.deadLetterPath())).list().committed()) {
            find(file, true, deadLetters, request, found);
        }
        return new ErasurePlan(found, cutShort());
    }

    private static void find(ArchiveFile file, boolean deadLetters, ArchiveFileReader reader, ErasureRequest request,
            List<ErasurePlan.FileErasure> found) throws IOException {
        if (!request.covers(file.topic())) {
            return;
        }
        Map<Integer, NavigableMap<Long, Long>> records = new TreeMap<>();
        reader.read(file.path(), r -> {
            if (request.selects(r)) {
                records.computeIfAbsent(r.getPartition(), p -> new TreeMap<>()).put(r.getOffset(), r.getTimestamp());
            }
        });
        if (!records.isEmpty()) {
            found.add(new ErasurePlan.FileErasure(file.path(), file.topic(), deadLetters, records));
        }
    }

    /** The files the position records name (each partition's last commit) that are not in the archive yet. */
    private List<String> cutShort() throws IOException {
        Set<String> missing = new TreeSet<>();
        for (PositionRecord r : new PositionRecovery(root).read().all()) {
            for (PositionRecord.PendingFile f : r.files()) {
                Path path = new Path(f.path());
                if (!path.getFileSystem().exists(path)) {
                    missing.add(f.path());
                }
            }
        }
        return new ArrayList<>(missing);
    }

    /** Rewrites {@code file} without its records to erase; returns how many records it left out. */
    public long rewrite(ErasurePlan.FileErasure file) throws IOException {
        Path path = file.path();
        FileSystem fs = path.getFileSystem();
        FileFormat format = FileFormats.ofFile(path.getName())
                .orElseThrow(() -> new IOException(path + " is of no format this archiver writes"));
        // an object store replaces the object when the new one's upload completes; elsewhere a rename replaces the file
        Path target = fs.isDistributedFS() ? path : new Path(path.getParent(), "." + path.getName() + ".erasing");
        long dropped;
        try (FSDataOutputStream out = fs.create(target, FileSystem.WriteMode.OVERWRITE)) {
            dropped = format.copyWithout(path, out, file.offsets());
        }
        if (!target.equals(path) && !fs.rename(target, path)) {
            throw new IOException("Cannot replace " + path + " by " + target);
        }
        return dropped;
    }
}
