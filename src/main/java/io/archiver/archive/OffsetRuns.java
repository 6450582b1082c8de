package io.archiver.archive;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Offsets found one by one in ascending order, kept as runs {@code [first, last]}: a run grows while nothing
 * else is found between its offsets (holes without records do not break it), so a deleted file is one run
 * however many records it held. {@link #breakRun()} ends the current run.
 */
public final class OffsetRuns {

    private long[] runs = new long[8];
    private int size;
    private long count;
    private boolean open;

    public void add(long offset) {
        count++;
        if (open) {
            runs[size - 1] = offset;
            return;
        }
        if (size + 2 > runs.length) {
            runs = Arrays.copyOf(runs, runs.length * 2);
        }
        runs[size++] = offset;
        runs[size++] = offset;
        open = true;
    }

    public void breakRun() {
        open = false;
    }

    /** Offsets added. */
    public long count() {
        return count;
    }

    public boolean isEmpty() {
        return count == 0;
    }

    /** The runs as {@code [first, last]} pairs, ascending. */
    public List<long[]> runs() {
        List<long[]> out = new ArrayList<>(size / 2);
        for (int i = 0; i < size; i += 2) {
            out.add(new long[] {runs[i], runs[i + 1]});
        }
        return out;
    }

    /** The first {@code max} runs as text, {@code 10..19, 40, ...}. */
    public String describe(int max) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < size && i / 2 < max; i += 2) {
            sb.append(i == 0 ? "" : ", ").append(runs[i]);
            if (runs[i + 1] != runs[i]) {
                sb.append("..").append(runs[i + 1]);
            }
        }
        if (size / 2 > max) {
            sb.append(", ... (").append(size / 2).append(" runs)");
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        return describe(Integer.MAX_VALUE);
    }
}
