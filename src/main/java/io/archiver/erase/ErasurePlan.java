package io.archiver.erase;

import org.apache.flink.core.fs.Path;

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
    public record FileErasure(Path path, String topic, boolean deadLetters, Map<Integer, NavigableMap<Long, Long>> records) {

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
    private final List<String> replacedLeft;
    private final int searched;
    private final int readWhole;

    ErasurePlan(List<FileErasure> files, List<String> cutShort, List<String> replacedLeft, int searched, int readWhole) {
        this.files = List.copyOf(files);
        this.cutShort = List.copyOf(cutShort);
        this.replacedLeft = List.copyOf(replacedLeft);
        this.searched = searched;
        this.readWhole = readWhole;
    }

    /** The files searched for the records. */
    public int searched() {
        return searched;
    }

    /** The files searched by reading every record (in the time asked): no Bloom filter of the key narrowed the search. */
    public int readWhole() {
        return readWhole;
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
