package io.archiver.restore.ledger;

import io.archiver.restore.plan.RestoreSelection;
import io.archiver.record.ArchiveRecord;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class RestoreHistoryTest {

    /** Offsets 0..9; offset i stamped at {@code stamps[i]} (not in offset order). */
    private static final long[] STAMPS = {5, 1, 8, 2, 9, 3, 7, 0, 6, 4};

    @Test
    void aLaterUntilWritesOnlyTheRecordsTheFirstRunDidNotTakeWhateverTheirOffsets() {
        RestoreHistory first = RestoreHistory.empty("id", Map.of("t-0", 0L)).begin(until(4), 1).readThrough(9, 5);
        RestoreHistory second = first.begin(until(9), 2);

        List<Long> writtenNow = new ArrayList<>();
        for (ArchiveRecord r : records()) {
            if (until(9).takes(r) && !second.written(r)) {
                writtenNow.add(r.getOffset());
            }
        }

        assertThat(writtenNow).containsExactly(0L, 2L, 4L, 6L, 8L);
        assertThat(second.runs()).hasSize(2);
    }

    @Test
    void aRunStartedAgainWithTheSameSelectionGoesOnInsteadOfAddingARun() {
        RestoreHistory crashed = RestoreHistory.empty("id", Map.of()).begin(until(9), 1).readThrough(3, 4);
        RestoreHistory again = crashed.begin(until(9), 5);

        assertThat(again.runs()).hasSize(1);
        assertThat(again.runs().get(0).through()).isEqualTo(3);
        assertThat(again.runs().get(0).lastStart()).isEqualTo(5);
        assertThat(records().stream().filter(again::written).map(ArchiveRecord::getOffset)).containsExactly(0L, 1L, 2L, 3L);
    }

    @Test
    void writtenByNamesTheRunThatPutARecordIntoTheTarget() {
        RestoreHistory history = RestoreHistory.empty("id", Map.of()).begin(until(4), 1).readThrough(9, 5).begin(until(9), 2)
                .readThrough(9, 5);

        ArchiveRecord early = records().get(1); // stamped 1
        ArchiveRecord late = records().get(0); // stamped 5
        assertThat(history.writtenBy(0, early)).isTrue();
        assertThat(history.writtenBy(1, early)).as("the second run did not write it again").isFalse();
        assertThat(history.writtenBy(1, late)).isTrue();
    }

    @Test
    void aLedgerEntryReadsBackAsWritten() throws Exception {
        RestoreHistory history = RestoreHistory.empty("topic-id", Map.of("t-0", 7L, "t-1", 0L)).begin(until(4), 11).readThrough(9, 5)
                .begin(RestoreSelection.parse(null, null, null, null, "3-", null, null), 12).readThrough(6, 2);

        assertThat(RestoreLedger.decode(RestoreLedger.encode(history))).isEqualTo(history);
    }

    private static RestoreSelection until(long stamp) {
        return RestoreSelection.parse(null, null, Instant.ofEpochMilli(stamp).toString());
    }

    private static List<ArchiveRecord> records() {
        List<ArchiveRecord> records = new ArrayList<>();
        for (int i = 0; i < STAMPS.length; i++) {
            records.add(new ArchiveRecord("t", 0, i, STAMPS[i], "CreateTime", new byte[] {(byte) i}, new byte[] {(byte) i}, new String[0],
                    new byte[0][]));
        }
        return records;
    }
}
