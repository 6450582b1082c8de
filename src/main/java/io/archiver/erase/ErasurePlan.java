package io.archiver.erase;

import org.apache.flink.core.fs.Path;

import java.io.Serializable;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;

/**
 * What an erasure finds in the archive: each file holding records to erase, with their offsets (and timestamps) per
 * partition; and the files of commits cut short (named by a position record, not complete yet), which a start of the
 * job completes with whatever records they hold.
 */
public final class ErasurePlan {

    /** A file and the records to leave out of it: partition to offset to timestamp. */
    public record FileErasure(Path path, String topic, boolean deadLetters, Map<Integer, NavigableMap<Long, Long>> records) implements Serializable {

        /** The offsets to leave out, per partition. */
        public Map<Integer, Set<Long>> offsets() {
            Map<Integer, Set<Long>> offsets = new TreeMap<>();
            records.forEach((p, r) -> offsets.put(p, r.keySet()));
            return offsets;
        }

        public long count() {
            return records.values().stream().mapToLong(Map::size).sum();
        }
    }

    private final List<FileErasure> files;
    private final List<String> cutShort;
    private final List<String> committedSince;
    private final List<String> replacedLeft;
    private final Search search;

    /**
     * How the archive was searched: {@code files} searched; {@code readWhole} of them searched for keys record by record
     * (no Bloom filter of the key narrowed it); the files that could not be searched by a typed column ({@code untyped}:
     * their payloads are not in typed columns); the typed columns asked that no file has ({@code columnsNowhere}).
     */
    public record Search(int files, int readWhole, List<String> untyped, Set<String> columnsNowhere) {}

    ErasurePlan(List<FileErasure> files, List<String> cutShort, List<String> committedSince, List<String> replacedLeft, Search search) {
        this.files = List.copyOf(files);
        this.cutShort = List.copyOf(cutShort);
        this.committedSince = List.copyOf(committedSince);
        this.replacedLeft = List.copyOf(replacedLeft);
        this.search = search;
    }

    /** How the archive was searched. */
    public Search search() {
        return search;
    }

    /** With tables: files an earlier erasure swapped out of their table but did not delete (cut short): to delete. */
    public List<String> replacedLeft() {
        return replacedLeft;
    }

    /** The files to rewrite. */
    public List<FileErasure> files() {
        return files;
    }

    /** Files of commits cut short: not in the archive yet, completed (with their records) by the job's next start. */
    public List<String> cutShort() {
        return cutShort;
    }

    /**
     * Files of the commit a running job was making when the archive was searched, complete since: not searched (records
     * of them are committed after the erasure read the archive, and stay).
     */
    public List<String> committedSince() {
        return committedSince;
    }

    /** Records to erase now. */
    public long records() {
        return files.stream().mapToLong(FileErasure::count).sum();
    }

    /** Records to erase now per topic and partition ({@code topic-partition}), in order. */
    public Map<String, Long> recordsByPartition() {
        Map<String, Long> counts = new TreeMap<>();
        for (FileErasure f : files) {
            f.records().forEach((p, r) -> counts.merge(f.topic() + "-" + p, (long) r.size(), Long::sum));
        }
        return counts;
    }

    /** Nothing to rewrite and nothing left to delete. */
    public boolean isEmpty() {
        return files.isEmpty() && replacedLeft.isEmpty();
    }
}
