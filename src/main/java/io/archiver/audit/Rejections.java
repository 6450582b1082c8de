package io.archiver.audit;

import io.archiver.archive.OffsetRuns;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The committed records of one partition that the job rejected in one way (dead-lettered or skipped) and did not
 * archive: their offsets as runs and how many for each reason (the first {@value #REASONS} reasons by name, the
 * rest together).
 */
public final class Rejections {

    static final int REASONS = 10;
    static final String OTHER_REASONS = "(other reasons)";

    private final OffsetRuns offsets = new OffsetRuns();
    private final Map<String, Long> reasons = new LinkedHashMap<>();

    void add(long offset, String reason) {
        offsets.add(offset);
        String key = reasons.containsKey(reason) || reasons.size() < REASONS ? reason : OTHER_REASONS;
        reasons.merge(key, 1L, Long::sum);
    }

    public OffsetRuns offsets() {
        return offsets;
    }

    public long count() {
        return offsets.count();
    }

    /** Records per reason, in the order the reasons were first met. */
    public Map<String, Long> reasons() {
        return reasons;
    }
}
