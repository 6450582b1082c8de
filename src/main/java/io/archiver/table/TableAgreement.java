package io.archiver.table;

import java.util.List;

/**
 * Whether a topic's table lists the archive's committed files, and only those: {@code lacking}, files committed before
 * the table's last append that it does not list (a finding: {@code table register} appends them); {@code inFlight},
 * files committed since (the next snapshot's, not a finding); {@code extra}, files the table lists that the archive
 * does not hold (a finding: deleted from the archive behind the table's back).
 */
public record TableAgreement(String table, long snapshot, int files, List<String> lacking, int inFlight, List<String> extra) {

    public TableAgreement {
        lacking = List.copyOf(lacking);
        extra = List.copyOf(extra);
    }

    public boolean isClean() {
        return lacking.isEmpty() && extra.isEmpty();
    }
}
