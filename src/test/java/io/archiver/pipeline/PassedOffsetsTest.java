package io.archiver.pipeline;

import io.archiver.pipeline.PassedOffsets.Verdict;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class PassedOffsetsTest {

    private final List<String> events = new ArrayList<>();
    private final PassedOffsets passed = new PassedOffsets(new PassedOffsets.Listener() {
        @Override
        public void readingAgain(TopicPartition partition, long offset, long lastPassed) {
            events.add(partition + " again at " + offset + " after " + lastPassed);
        }

        @Override
        public void newAgain(TopicPartition partition, PassedOffsets.ReadAgain r) {
            events.add(partition + " new again: " + r);
        }
    });

    @Test
    void offsetsBeyondTheLastPassedAreNewWhateverTheirEpoch() {
        assertThat(passed.check("t", 0, 5, 0)).isEqualTo(Verdict.NEW);
        assertThat(passed.check("t", 0, 6, 0)).isEqualTo(Verdict.NEW);
        assertThat(passed.check("t", 0, 9, 3)).isEqualTo(Verdict.NEW);
        assertThat(passed.check("t", 1, 0, 7)).as("another partition").isEqualTo(Verdict.NEW);
        assertThat(events).isEmpty();
    }

    @Test
    void aTruncationReadFromWhereTheLogsDivergeIsOtherRecordsThenNewBeyondTheArchived() {
        for (long o = 0; o < 10; o++) {
            passed.check("t", 0, o, o < 5 ? 0 : 1); // epoch 1 from offset 5
        }
        // the new leader (epoch 2) had offsets up to 6: Kafka truncated 7..9 and wrote 7.. again
        assertThat(passed.check("t", 0, 7, 2)).isEqualTo(Verdict.OTHER_RECORD);
        assertThat(passed.passedEpoch("t", 0, 7)).isEqualTo(1);
        assertThat(passed.check("t", 0, 8, 2)).isEqualTo(Verdict.OTHER_RECORD);
        assertThat(passed.check("t", 0, 9, 2)).isEqualTo(Verdict.OTHER_RECORD);
        assertThat(passed.check("t", 0, 10, 2)).isEqualTo(Verdict.NEW);
        assertThat(events).containsExactly("t-0 again at 7 after 9", "t-0 new again: ReadAgain[first=7, last=9, same=0, other=3, unknown=0]");
        assertThat(passed.passedEpoch("t", 0, 9)).as("the archive's record is remembered, not the one read again").isEqualTo(1);
        assertThat(passed.passedEpoch("t", 0, 10)).isEqualTo(2);
    }

    @Test
    void aResetToTheLogStartReadsTheArchivedRecordsAsTheSameUntilTheTruncation() {
        for (long o = 100; o < 110; o++) {
            passed.check("t", 0, o, o < 105 ? 4 : 5);
        }
        // position beyond the new log end: the consumer started over at the log start (50), before this state's memory
        List<Verdict> verdicts = new ArrayList<>();
        for (long o = 50; o < 112; o++) {
            verdicts.add(passed.check("t", 0, o, o < 107 ? (o < 105 ? 4 : 5) : 6));
        }
        assertThat(verdicts.subList(0, 50)).containsOnly(Verdict.UNKNOWN);
        assertThat(verdicts.subList(50, 57)).as("offsets 100..106: same epochs as archived").containsOnly(Verdict.SAME_RECORD);
        assertThat(verdicts.subList(57, 60)).as("107..109: written again in epoch 6").containsOnly(Verdict.OTHER_RECORD);
        assertThat(verdicts.subList(60, 62)).containsOnly(Verdict.NEW);
        assertThat(events).containsExactly("t-0 again at 50 after 109",
                "t-0 new again: ReadAgain[first=50, last=109, same=7, other=3, unknown=50]");
    }

    @Test
    void recordsWithoutLeaderEpochReadAgainAreUnknown() {
        passed.check("t", 0, 0, -1);
        passed.check("t", 0, 1, -1);
        assertThat(passed.check("t", 0, 1, -1)).isEqualTo(Verdict.UNKNOWN);
        passed.check("t", 0, 2, 3);
        assertThat(passed.check("t", 0, 2, -1)).isEqualTo(Verdict.UNKNOWN);
    }

    @Test
    void theMemoryTravelsThroughStateAndTheFurthestOfTwoEntriesOfAPartitionWins() {
        PassedOffsets before = new PassedOffsets(null);
        for (long o = 0; o < 20; o++) {
            before.check("t", 0, o, (int) (o / 10));
        }
        before.check("u", 3, 7, 1);
        PassedOffsets otherSubtask = new PassedOffsets(null);
        otherSubtask.check("t", 0, 4, 0); // an older entry of the same partition (the union hands every subtask all)

        List<byte[]> union = new ArrayList<>(otherSubtask.snapshot(1, 2));
        union.addAll(before.snapshot(0, 2));
        passed.restore(union);

        assertThat(passed.check("t", 0, 15, 1)).isEqualTo(Verdict.SAME_RECORD);
        assertThat(passed.check("t", 0, 15, 2)).isEqualTo(Verdict.OTHER_RECORD);
        assertThat(passed.check("t", 0, 20, 2)).isEqualTo(Verdict.NEW);
        assertThat(passed.check("u", 3, 7, 1)).isEqualTo(Verdict.SAME_RECORD);
        assertThat(passed.check("u", 3, 6, 1)).as("before the state's memory").isEqualTo(Verdict.UNKNOWN);
    }

    @Test
    void eachSubtaskWritesWhatItSawAndItsShareOfWhatItOnlyRestoredSoNoPartitionIsCopiedPerSubtask() {
        PassedOffsets before = new PassedOffsets(null);
        for (int p = 0; p < 100; p++) {
            before.check("t", p, 7, 1);
        }
        List<byte[]> union = before.snapshot(0, 1);
        assertThat(union).hasSize(100);
        int subtasks = 4;
        List<byte[]> next = new ArrayList<>();
        for (int subtask = 0; subtask < subtasks; subtask++) {
            PassedOffsets restored = new PassedOffsets(null);
            restored.restore(union);
            if (subtask == 0) {
                restored.check("t", 99, 8, 1); // a record of partition 99 came to subtask 0
            }
            next.addAll(restored.snapshot(subtask, subtasks));
        }
        assertThat(next.size()).as("each partition once, the one that moved at most twice").isBetween(100, 101);
        passed.restore(next);
        for (int p = 0; p < 99; p++) {
            assertThat(passed.passedEpoch("t", p, 7)).as("partition %d remembered", p).isEqualTo(1);
        }
        assertThat(passed.check("t", 99, 8, 1)).as("the furthest entry of partition 99 won").isEqualTo(Verdict.SAME_RECORD);
    }

    @Test
    void onlyTheLatestLeaderChangesAreRemembered() {
        for (int epoch = 0; epoch < PassedOffsets.EPOCHS_KEPT + 10; epoch++) {
            passed.check("t", 0, epoch, epoch);
        }
        assertThat(passed.check("t", 0, 9, 9)).as("forgotten").isEqualTo(Verdict.UNKNOWN);
        assertThat(passed.check("t", 0, 10, 10)).isEqualTo(Verdict.SAME_RECORD);
        assertThat(passed.check("t", 0, PassedOffsets.EPOCHS_KEPT + 9, PassedOffsets.EPOCHS_KEPT + 9)).isEqualTo(Verdict.SAME_RECORD);
    }

    @Test
    void eachRestoredPartitionsLastRecordIsAskedAboutByOneSubtaskWithItsLeaderEpoch() {
        for (int p = 0; p < 8; p++) {
            passed.check("t", p, 10, 0);
            passed.check("t", p, 11, 3);
        }
        passed.check("t", 8, 4, -1); // a record without a leader epoch: nothing to ask
        PassedOffsets restored = new PassedOffsets(null);
        restored.restore(passed.snapshot(0, 1));
        java.util.Map<TopicPartition, io.archiver.kafka.LogDivergence.LastRead> all = new java.util.HashMap<>();
        for (int subtask = 0; subtask < 3; subtask++) {
            java.util.Map<TopicPartition, io.archiver.kafka.LogDivergence.LastRead> share = restored.lastPassed(subtask, 3);
            assertThat(java.util.Collections.disjoint(share.keySet(), all.keySet())).as("shares do not overlap").isTrue();
            all.putAll(share);
        }
        assertThat(all).hasSize(8).containsEntry(new TopicPartition("t", 5), new io.archiver.kafka.LogDivergence.LastRead(11, 3));
    }
}
