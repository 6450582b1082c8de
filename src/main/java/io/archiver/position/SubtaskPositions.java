package io.archiver.position;

import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The position records one committer subtask writes: its {@link PositionStore} object holds a record of every
 * partition it has committed, replaced whole at each commit before the commit's files become visible, and once
 * more when they all are ({@link #committed}). Until then the records of the partitions in the commit list its
 * files (a start without state completes them if the commit is cut short); afterwards they list none (settled),
 * so a start without state checks files only of a commit cut short.
 *
 * <p>Positions only advance: a commit ending below a partition's position re-commits files of a restored older
 * savepoint (already visible), and lowering the position would make the next start without state archive again
 * what is archived. The one exception is a position whose own files are not visible: their upload was lost, a
 * start without state resumed below it ({@link PositionRecovery}), and what this job commits there is the
 * partition's position now. A partition's first commit here reads the archive's positions once (one listing,
 * a read per subtask object) to know its position and the sequence to write after it.
 */
public final class SubtaskPositions {

    private static final Logger LOG = LoggerFactory.getLogger(SubtaskPositions.class);

    private final PositionStore store;
    private final int subtask;
    /** The records of this subtask's object, by partition; read at the first commit. */
    private Map<TopicPartition, PositionRecord> object;
    /** The partition's position record with the highest sequence: read at its first commit here, then written here. */
    private final Map<TopicPartition, PositionRecord> latest = new HashMap<>();
    /** Partitions whose records list the files of the last commit, not known to be complete. */
    private Set<TopicPartition> uncommitted = Set.of();

    public SubtaskPositions(PositionStore store, int subtask) {
        this.store = store;
        this.subtask = subtask;
    }

    /**
     * Writes the records of one commit, one per partition with files in it (sequence not set yet), in one
     * object; returns those written: every record but those that would move a position back.
     */
    public List<PositionRecord> write(Collection<PositionRecord> commit) throws IOException {
        if (object == null) {
            object = new LinkedHashMap<>();
            store.readSubtask(subtask).forEach(r -> object.put(r.topicPartition(), r));
        }
        readLatest(commit);
        List<PositionRecord> written = new ArrayList<>(commit.size());
        for (PositionRecord r : commit) {
            TopicPartition tp = r.topicPartition();
            PositionRecord position = latest.get(tp);
            if (position != null && r.nextOffset() < position.nextOffset() && PositionRecovery.allVisible(position)) {
                LOG.info("Position of {} stays at {}: the files committed now end at {} (re-committed from an older savepoint)",
                        tp, position.nextOffset(), r.nextOffset() - 1);
                continue;
            }
            PositionRecord next = r.withSequence(position == null ? 1 : position.sequence() + 1);
            latest.put(tp, next);
            written.add(next);
        }
        if (written.isEmpty()) {
            return written;
        }
        Set<TopicPartition> now = new HashSet<>();
        for (PositionRecord r : written) {
            object.put(r.topicPartition(), r);
            now.add(r.topicPartition());
        }
        store.writeSubtask(subtask, object.values());
        uncommitted = now;
        return written;
    }

    /**
     * The files of the last {@link #write} are all visible: their records list them no longer, in memory at once
     * and in the object now (if that write fails, the records keep listing visible files, which a start without
     * state only checks).
     */
    public void committed() throws IOException {
        if (uncommitted.isEmpty()) {
            return;
        }
        for (TopicPartition tp : uncommitted) {
            object.computeIfPresent(tp, (k, r) -> r.settled());
            latest.computeIfPresent(tp, (k, r) -> r.settled());
        }
        uncommitted = Set.of();
        store.writeSubtask(subtask, object.values());
    }

    private void readLatest(Collection<PositionRecord> commit) throws IOException {
        for (PositionRecord r : commit) {
            if (!latest.containsKey(r.topicPartition())) {
                ArchivePositions positions = store.read();
                for (PositionRecord c : commit) {
                    TopicPartition tp = c.topicPartition();
                    if (!latest.containsKey(tp)) {
                        positions.record(tp).ifPresent(known -> latest.put(tp, known));
                    }
                }
                return;
            }
        }
    }

}
