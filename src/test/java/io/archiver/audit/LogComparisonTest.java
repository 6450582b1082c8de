package io.archiver.audit;

import io.archiver.archive.PartitionReport;
import io.archiver.archive.RejectedRecords;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class LogComparisonTest {

    /** Log: committed records at 0..4, a commit marker at 5, aborted records 6..8 with their marker at 9, committed 10..12. */
    private static final long[] COMMITTED = {0, 1, 2, 3, 4, 10, 11, 12};

    private static LogComparison compare(long[] archived, long logStart, long firstBeyond) {
        LogComparison c = new LogComparison(archived, logStart);
        for (long offset : COMMITTED) {
            if (offset >= logStart && archived.length > 0 && offset <= archived[archived.length - 1]) {
                c.committed(offset);
            }
        }
        c.end(firstBeyond);
        return c;
    }

    @Test
    void archiveOfTheCommittedRecordsHasNoDifferenceDespiteHoles() {
        LogComparison c = compare(COMMITTED, 0, -1);
        assertThat(c.missing().count()).isZero();
        assertThat(c.notInLog()).isEmpty();
        assertThat(c.firstUnarchived()).isEqualTo(-1);
    }

    @Test
    void archivedAbortedRecordsAreNotInTheCommittedLog() {
        LogComparison c = compare(new long[] {0, 1, 2, 3, 4, 6, 7, 8, 10, 11, 12}, 0, -1);
        assertThat(c.missing().count()).isZero();
        assertThat(c.notInLog()).containsExactly(6, 7, 8);
    }

    @Test
    void missingCommittedRecordsFormOneRunAcrossHolesWithoutRecords() {
        LogComparison c = compare(new long[] {0, 1, 2, 12}, 0, -1);
        assertThat(c.missing().count()).isEqualTo(4);
        assertThat(c.missing().runs()).containsExactly(new long[] {3, 11});
        assertThat(c.missing().describe(5)).isEqualTo("3..11");
    }

    @Test
    void archivedRecordsOfTwoAbortedTransactionsAreTwoRuns() {
        long[] log = {0, 1, 4, 5};
        long[] archived = {0, 1, 2, 3, 4, 5, 6, 7};
        LogComparison c = new LogComparison(archived, 0);
        for (long offset : log) {
            c.committed(offset);
        }
        c.end(-1);
        ArchivedNotInLog n = ArchivedNotInLog.classify(
                c.notInLog(), c.runStarts(), c.notInLog(), new KafkaPartitionState(0, 9, 9, -1), false);
        assertThat(n.aborted().runs()).containsExactly(new long[] {2, 3}, new long[] {6, 7});
    }

    @Test
    void archivedOffsetsAfterTheLastCommittedRecordAreNotInTheLog() {
        LogComparison c = compare(new long[] {0, 1, 2, 3, 4, 10, 11, 12, 13, 14}, 0, -1);
        assertThat(c.notInLog()).containsExactly(13, 14);
    }

    @Test
    void offsetsBelowTheLogStartAreCountedNotCompared() {
        LogComparison c = compare(new long[] {0, 1, 2, 3, 4, 10}, 3, 11);
        assertThat(c.beforeLogStart()).isEqualTo(3);
        assertThat(c.missing().count()).isZero();
        assertThat(c.notInLog()).isEmpty();
        assertThat(c.firstUnarchived()).isEqualTo(11);
    }

    @Test
    void abortedOpenTruncatedAndAbsentOffsetsAreToldApart() {
        KafkaPartitionState kafka = new KafkaPartitionState(0, 20, 25, -1);
        ArchivedNotInLog n = ArchivedNotInLog.classify(new long[] {6, 7, 8, 15, 21, 22, 30, 31}, new java.util.BitSet(), new long[] {6, 7, 8}, kafka, false);
        assertThat(n.aborted().runs()).containsExactly(new long[] {6, 8});
        assertThat(n.absent().runs()).as("within the log").containsExactly(new long[] {15, 15});
        assertThat(n.truncated().runs()).as("beyond the log end").containsExactly(new long[] {30, 31});
        assertThat(n.open().runs()).containsExactly(new long[] {21, 22});
        assertThat(n.findings()).isEqualTo(8);
    }

    @Test
    void archivedRecordsKafkaWroteOverAfterATruncationAreTruncatedNotDifferingNorRearchived() {
        // the job archived 0..3; Kafka truncated its log to 2 and wrote other records at 2..3, which the job dead-lettered
        RejectedRecords.OfPartition rejected = RejectedRecords.OfPartition.of(new long[] {2, 3},
                new RejectedRecords.Kind[] {RejectedRecords.Kind.DEAD_LETTERED, RejectedRecords.Kind.DEAD_LETTERED},
                new String[] {io.archiver.record.DeadLetter.KAFKA_TRUNCATED + ": offset 2 ...", io.archiver.record.DeadLetter.KAFKA_TRUNCATED + ": offset 3 ..."});
        LogComparison c = new LogComparison(new long[] {0, 1, 2, 3}, new PartitionReport.Digests(new long[] {10, 20, 30, 40}, new long[] {1, 2, 3, 4}),
                rejected, 0);
        c.committed(0, 10, 1);
        c.committed(1, 20, 2);
        c.committed(2, 99, 3);
        c.committed(3, 98, 4);
        c.end(-1);

        assertThat(c.truncated().runs()).containsExactly(new long[] {2, 3});
        assertThat(c.contentDiffers().count()).isZero();
        assertThat(c.rejectedSinceArchived()).isZero();
        assertThat(c.rejections().get(RejectedRecords.Kind.DEAD_LETTERED).count()).isZero();
        assertThat(c.missing().count()).isZero();
    }

    @Test
    void recordsCompactionRemovedAreHistoryNotFindings() {
        KafkaPartitionState kafka = new KafkaPartitionState(0, 20, 20, -1);
        ArchivedNotInLog n = ArchivedNotInLog.classify(new long[] {3, 4, 9}, new java.util.BitSet(), new long[] {9}, kafka, true);
        assertThat(n.compacted()).isEqualTo(2);
        assertThat(n.aborted().count()).isEqualTo(1);
        assertThat(n.findings()).isEqualTo(1);
    }

    @Test
    void rejectedRecordsAreAccountedForApartFromMissingOnesByKindAndReason() {
        RejectedRecords.OfPartition rejected = RejectedRecords.OfPartition.of(new long[] {1, 2, 11},
                new RejectedRecords.Kind[] {RejectedRecords.Kind.DEAD_LETTERED, RejectedRecords.Kind.DEAD_LETTERED, RejectedRecords.Kind.SKIPPED},
                new String[] {"no magic byte", "no magic byte", "unknown schema id 7"});
        LogComparison c = new LogComparison(new long[] {0, 4, 10}, null, rejected, 0);
        for (long offset : new long[] {0, 1, 2, 3, 4, 10, 11}) {
            c.committed(offset);
        }
        c.end(12);

        assertThat(c.missing().runs()).containsExactly(new long[] {3, 3});
        Rejections dead = c.rejections().get(RejectedRecords.Kind.DEAD_LETTERED);
        assertThat(dead.offsets().runs()).containsExactly(new long[] {1, 2});
        assertThat(dead.reasons()).containsExactly(Map.entry("no magic byte", 2L));
        assertThat(c.rejections().get(RejectedRecords.Kind.SKIPPED).offsets().runs()).containsExactly(new long[] {11, 11});
        assertThat(c.firstUnarchived()).isEqualTo(12);
    }

    @Test
    void aRejectedRecordArchivedSinceCountsAsArchived() {
        RejectedRecords.OfPartition rejected = RejectedRecords.OfPartition.of(new long[] {1},
                new RejectedRecords.Kind[] {RejectedRecords.Kind.DEAD_LETTERED}, new String[] {"bad"});
        LogComparison c = new LogComparison(new long[] {0, 1, 2}, null, rejected, 0);
        for (long offset : new long[] {0, 1, 2}) {
            c.committed(offset);
        }
        c.end(-1);
        assertThat(c.rejections().get(RejectedRecords.Kind.DEAD_LETTERED).count()).isZero();
        assertThat(c.rejectedSinceArchived()).isEqualTo(1);
        assertThat(c.missing().count()).isZero();
    }

    @Test
    void contentThatDiffersIsReportedWithItsFieldsWhereDigestsAreCompared() {
        long[] words = {10, 20, 30, 40};
        long[] timestamps = {1, 2, 3, 4};
        LogComparison c = new LogComparison(new long[] {0, 1, 2, 3}, new PartitionReport.Digests(words, timestamps),
                RejectedRecords.OfPartition.NONE, 0);
        c.committed(0, 10, 1);
        c.committed(1, 20 ^ (1L << 30), 2);
        c.committed(2, 30, 9);
        c.committed(3, 40, 4);
        c.end(-1);

        assertThat(c.contentDiffers().runs()).containsExactly(new long[] {1, 2});
        assertThat(c.differingExamples()).containsExactly("1 (value)", "2 (timestamp)");
        assertThat(c.differingFields()).containsExactly(0, 1, 0, 1, 0);
    }
}
