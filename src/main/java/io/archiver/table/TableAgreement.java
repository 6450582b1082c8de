package io.archiver.table;

import java.util.List;

/**
 * Whether a topic's table lists the archive's committed files, and only those: {@code lacking}, files it does not list
 * whose offsets lie below what it holds of their partitions (a finding: {@code table register} appends them);
 * {@code inFlight}, files after them (the next snapshot's, not a finding); {@code replaced}, files a compaction replaced
 * that retained snapshots still reference and {@code abandoned}, outputs of a compaction cut short before its commit
 * (neither a finding: {@code table expire} removes both); {@code extra}, files the table lists that the archive does not
 * hold (a finding: deleted from the archive behind the table's back).
 */
public record TableAgreement(String table, long snapshot, int files, List<String> lacking, int inFlight, int replaced, int abandoned,
        List<String> extra) {

    public TableAgreement {
        lacking = List.copyOf(lacking);
        extra = List.copyOf(extra);
    }

    public boolean isClean() {
        return lacking.isEmpty() && extra.isEmpty();
    }
}
