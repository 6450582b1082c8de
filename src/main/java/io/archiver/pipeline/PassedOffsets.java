package io.archiver.pipeline;

import io.archiver.kafka.LogDivergence;

import org.apache.kafka.common.TopicPartition;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the job has passed on towards the archive of each partition, remembered as a Kafka replica remembers its log:
 * the last offset, and the offset where each leader epoch began. Kafka's offsets only grow, so a record at an offset
 * already passed is one read again: Kafka truncated its log below the job's position (an unclean leader election, a
 * replica that lost its disk) and the consumer went back, to where the logs diverge or, when its position fell beyond
 * the new log end, to the log start. The record's leader epoch tells which record it is: Kafka's replication never
 * holds two records with the same epoch at one offset, so the same epoch as when it was passed is {@link
 * Verdict#SAME_RECORD}, another is {@link Verdict#OTHER_RECORD}: a record written after the truncation, not the one
 * archived. Offsets before what this job's state remembers (archived by an earlier run) are {@link Verdict#UNKNOWN}.
 *
 * <p>Not thread-safe: one per subtask, checked per record. Kept in the subtask's operator state as bytes ({@link
 * #snapshot}, {@link #restore}).
 */
final class PassedOffsets {

    /** What a record's offset and leader epoch say about it. */
    enum Verdict {
        /** Beyond the last offset passed: a record to archive. */
        NEW,
        /** At an offset passed before, with the leader epoch it had then: the record passed before, read again. */
        SAME_RECORD,
        /** At an offset passed before, with another leader epoch: Kafka truncated its log and wrote this record there. */
        OTHER_RECORD,
        /** At an offset passed before whose epoch is not known (before this state's memory, or a record without epoch). */
        UNKNOWN
    }

    /** What the job logs and counts when a partition's offsets go back, and when they are new again. */
    interface Listener {
        void readingAgain(TopicPartition partition, long offset, long lastPassed);

        void newAgain(TopicPartition partition, ReadAgain readAgain);
    }

    /** The records of one partition read again, from {@code first} to {@code last}, by verdict. */
    record ReadAgain(long first, long last, long same, long other, long unknown) {}

    /** Leader changes remembered per partition: older ones are forgotten (their offsets become {@link Verdict#UNKNOWN}). */
    static final int EPOCHS_KEPT = 1_000;
    private static final byte FORMAT = 1;

    private final Map<TopicPartition, History> partitions = new HashMap<>();
    private final Listener listener;
    /** The partition of the previous record: records come in batches per partition. */
    private History recent;

    PassedOffsets(Listener listener) {
        this.listener = listener;
    }

    Verdict check(String topic, int partition, long offset, int leaderEpoch) {
        History h = recent;
        if (h == null || h.partition.partition() != partition || !h.partition.topic().equals(topic)) {
            TopicPartition tp = new TopicPartition(topic, partition);
            h = partitions.computeIfAbsent(tp, History::new);
            h.seen = true;
            recent = h;
        }
        if (offset > h.last) {
            if (h.readAgainFrom >= 0) {
                listener.newAgain(h.partition, new ReadAgain(h.readAgainFrom, h.readAgainTo, h.same, h.other, h.unknown));
                h.readAgainFrom = -1;
            }
            h.pass(offset, leaderEpoch);
            return Verdict.NEW;
        }
        if (h.readAgainFrom < 0) {
            listener.readingAgain(h.partition, offset, h.last);
            h.readAgainFrom = offset;
            h.same = h.other = h.unknown = 0;
        }
        h.readAgainTo = offset;
        int passedEpoch = h.epochAt(offset);
        if (leaderEpoch < 0 || passedEpoch < 0) {
            h.unknown++;
            return Verdict.UNKNOWN;
        }
        if (passedEpoch == leaderEpoch) {
            h.same++;
            return Verdict.SAME_RECORD;
        }
        h.other++;
        return Verdict.OTHER_RECORD;
    }

    /** The leader epoch the record passed at {@code offset} of the partition had, -1 if not known. */
    int passedEpoch(String topic, int partition, long offset) {
        History h = partitions.get(new TopicPartition(topic, partition));
        return h == null ? -1 : h.epochAt(offset);
    }

    /**
     * Of the restored partitions falling to this subtask ({@code subtask} of {@code subtasks}) by hash, as in {@link
     * #snapshot}, the last record passed whose leader epoch is known: what a restore asks Kafka about, each partition once.
     */
    Map<TopicPartition, LogDivergence.LastRead> lastPassed(int subtask, int subtasks) {
        Map<TopicPartition, LogDivergence.LastRead> last = new HashMap<>();
        partitions.values().forEach(h -> {
            int epoch = h.epochAt(h.last);
            if (epoch >= 0 && Math.floorMod(h.partition.hashCode(), subtasks) == subtask) {
                last.put(h.partition, new LogDivergence.LastRead(h.last, epoch));
            }
        });
        return last;
    }

    /**
     * The memory this subtask ({@code subtask} of {@code subtasks}) writes into the operator's union list state: of the
     * partitions whose records it saw since it started, and of those it only restored, the share that falls to it by
     * hash. A union hands every subtask every entry, so writing all it holds would copy each partition once per subtask;
     * this way a partition is written once, twice while it moves between subtasks, and none is lost.
     */
    List<byte[]> snapshot(int subtask, int subtasks) {
        List<byte[]> out = new ArrayList<>();
        partitions.values().forEach(h -> {
            if (h.seen || Math.floorMod(h.partition.hashCode(), subtasks) == subtask) {
                out.add(h.toBytes());
            }
        });
        return out;
    }

    /**
     * Takes over what {@link #snapshot} wrote, of this subtask and every other (a union: partitions move between
     * subtasks when the parallelism changes): of two entries of one partition the one that passed further wins.
     */
    void restore(Iterable<byte[]> entries) {
        for (byte[] entry : entries) {
            History h = History.fromBytes(entry);
            partitions.merge(h.partition, h, (a, b) -> a.last >= b.last ? a : b);
        }
        recent = null;
    }

    private static final class History {
        final TopicPartition partition;
        long last = -1;
        /** Where each remembered leader epoch began: parallel arrays, ascending by offset. */
        int[] epochs = new int[2];
        long[] starts = new long[2];
        int size;
        /** Whether a record of the partition came to this subtask (else its memory was only restored). */
        boolean seen;
        /** While offsets are read again: the first and latest such offset and the verdicts so far. */
        long readAgainFrom = -1;
        long readAgainTo;
        long same;
        long other;
        long unknown;

        History(TopicPartition partition) {
            this.partition = partition;
        }

        void pass(long offset, int epoch) {
            if (size == 0 || epochs[size - 1] != epoch) {
                if (size == EPOCHS_KEPT) {
                    System.arraycopy(epochs, 1, epochs, 0, size - 1);
                    System.arraycopy(starts, 1, starts, 0, size - 1);
                    size--;
                } else if (size == epochs.length) {
                    epochs = Arrays.copyOf(epochs, Math.min(EPOCHS_KEPT, size * 2));
                    starts = Arrays.copyOf(starts, epochs.length);
                }
                epochs[size] = epoch;
                starts[size] = offset;
                size++;
            }
            last = offset;
        }

        int epochAt(long offset) {
            if (size == 0 || offset < starts[0] || offset > last) {
                return -1;
            }
            int i = Arrays.binarySearch(starts, 0, size, offset);
            return epochs[i >= 0 ? i : -i - 2];
        }

        byte[] toBytes() {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(32 + 12 * size);
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeByte(FORMAT);
                out.writeUTF(partition.topic());
                out.writeInt(partition.partition());
                out.writeLong(last);
                out.writeInt(size);
                for (int i = 0; i < size; i++) {
                    out.writeInt(epochs[i]);
                    out.writeLong(starts[i]);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return bytes.toByteArray();
        }

        static History fromBytes(byte[] entry) {
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(entry))) {
                byte format = in.readByte();
                if (format != FORMAT) {
                    throw new IllegalStateException("Passed offsets in state of format " + format + ", this version reads " + FORMAT);
                }
                History h = new History(new TopicPartition(in.readUTF(), in.readInt()));
                h.last = in.readLong();
                h.size = in.readInt();
                h.epochs = new int[Math.max(2, h.size)];
                h.starts = new long[h.epochs.length];
                for (int i = 0; i < h.size; i++) {
                    h.epochs[i] = in.readInt();
                    h.starts[i] = in.readLong();
                }
                return h;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
