package io.archiver.erase;

import io.archiver.archive.ArchiveFileReader;
import io.archiver.format.FormatReader;
import io.archiver.job.BatchWork;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;

import org.apache.flink.core.fs.Path;

import java.io.IOException;
import java.io.Serializable;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Searches one file for the records an {@link ErasureRequest} selects: by key (through the file's Bloom filters of the
 * key when it has them), then by each typed column asked. One task of an erasure's search, run for every file of the
 * archive and of its dead letters.
 */
final class FileSearch implements BatchWork.Task<FileSearch.Target, FileSearch.Found> {

    private static final long serialVersionUID = 1L;

    /** A file to search: of the archive, or of its dead letters (whose payloads are bytes). */
    record Target(Path path, String topic, boolean deadLetters) implements Serializable {}

    /**
     * What the search of {@code path} found: the records to erase ({@code erasure}, null for none); whether its keys were
     * read record by record ({@code readWhole}: no Bloom filter of the key narrowed it); how each typed column could be searched.
     */
    record Found(Path path, ErasurePlan.FileErasure erasure, boolean readWhole, Map<String, FormatReader.ColumnSearch> columns)
            implements Serializable {}

    private final PayloadFormats payloads;
    private final ErasureRequest request;
    private transient ArchiveFileReader archiveReader;
    private transient ArchiveFileReader deadLetterReader;

    FileSearch(PayloadFormats payloads, ErasureRequest request) {
        this.payloads = payloads;
        this.request = request;
    }

    @Override
    public Found apply(Target file) throws IOException {
        ArchiveFileReader reader = reader(file.deadLetters());
        Map<Integer, NavigableMap<Long, Long>> records = new TreeMap<>();
        Consumer<ArchiveRecord> add = r -> records.computeIfAbsent(r.getPartition(), p -> new TreeMap<>()).put(r.getOffset(), r.getTimestamp());
        boolean readWhole = false;
        List<byte[]> keys = request.keys();
        if (!keys.isEmpty()) {
            readWhole = !reader.readKeys(file.path(), keys, request.beforeMillis(), r -> {
                if (request.selects(r)) {
                    add.accept(r);
                }
            });
        }
        Map<String, FormatReader.ColumnSearch> columns = new TreeMap<>();
        for (Map.Entry<String, Set<String>> where : request.where().entrySet()) {
            columns.put(where.getKey(), reader.readWhere(file.path(), where.getKey(), where.getValue(), request.beforeMillis(), add));
        }
        ErasurePlan.FileErasure erasure = records.isEmpty() ? null : new ErasurePlan.FileErasure(file.path(), file.topic(), file.deadLetters(), records);
        return new Found(file.path(), erasure, readWhole, columns);
    }

    private ArchiveFileReader reader(boolean deadLetters) {
        if (deadLetters) {
            if (deadLetterReader == null) {
                deadLetterReader = new ArchiveFileReader(PayloadFormats.BYTES);
            }
            return deadLetterReader;
        }
        if (archiveReader == null) {
            archiveReader = new ArchiveFileReader(payloads);
        }
        return archiveReader;
    }
}
