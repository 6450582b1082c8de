package io.archiver.restore.plan;

import io.archiver.record.ArchiveRecord;

import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RestoreSelectionTest {

    @Test
    void topicsPatternPartitionsOffsetsAndTimeWindowSelectTogether() {
        RestoreSelection s = RestoreSelection.parse("orders", "pay.*", "0,2", null, "100-199", "2026-11-30T00:00:00Z",
                "2026-11-30T10:00:00Z");
        assertThat(s.takes("orders")).isTrue();
        assertThat(s.takes("payments")).isTrue();
        assertThat(s.takes("audit")).isFalse();
        assertThat(s.takes("orders", 1, 0, 1_000)).as("partition not selected").isFalse();
        assertThat(s.takes("orders", 2, 200, 300)).as("file after the range").isFalse();
        assertThat(s.takes("orders", 2, 150, 300)).isTrue();
        long inWindow = Instant.parse("2026-11-30T05:00:00Z").toEpochMilli();
        assertThat(s.takes(record(150, inWindow))).isTrue();
        assertThat(s.takes(record(99, inWindow))).isFalse();
        assertThat(s.takes(record(200, inWindow))).isFalse();
        assertThat(s.takes(record(150, Instant.parse("2026-11-30T10:00:00.001Z").toEpochMilli()))).isFalse();
        assertThat(s.takes(record(150, Instant.parse("2026-11-29T23:59:59.999Z").toEpochMilli()))).isFalse();
        assertThat(s.filtersRecords()).isTrue();
    }

    @Test
    void offsetRangesAndTimeWindowsKeepTheRestoresIdentityPartitionsChangeIt() {
        RestoreSelection first = RestoreSelection.parse("orders", null, null, null, "100-199", null, "2026-11-30T10:00:00Z");
        RestoreSelection extended = RestoreSelection.parse("orders", null, null, null, "100-", null, null);
        RestoreSelection next = RestoreSelection.parse("orders", null, null, null, "200-299", "2026-11-29T10:00:00Z", null);
        RestoreSelection onePartition = RestoreSelection.parse("orders", null, "1", null, "200-299", null, null);
        assertThat(extended.identity()).isEqualTo(first.identity());
        assertThat(next.identity()).isEqualTo(first.identity());
        assertThat(onePartition.identity()).isNotEqualTo(first.identity());
        assertThat(RestoreSelection.parse("orders", "x=y", null).identity())
                .as("unchanged for restores without the newer limits").isEqualTo("[orders]|{x=y}");
    }

    @Test
    void malformedLimitsAreRefusedWithTheirForm() {
        assertThatThrownBy(() -> RestoreSelection.parse(null, null, null, null, "200-100", null, null)).hasMessageContaining("after the last");
        assertThatThrownBy(() -> RestoreSelection.parse(null, null, null, null, "abc", null, null)).hasMessageContaining("FROM-TO");
        assertThatThrownBy(() -> RestoreSelection.parse(null, null, "a", null, null, null, null)).hasMessageContaining("e.g. 0,2");
        assertThatThrownBy(() -> RestoreSelection.parse(null, "(", null, null, null, null, null)).hasMessageContaining("--topic-pattern");
        assertThatThrownBy(() -> RestoreSelection.parse(null, null, null, null, null, "2026-12-01T00:00:00Z", "2026-11-01T00:00:00Z"))
                .hasMessageContaining("is after --until");
        assertThatThrownBy(() -> RestoreSelection.parse(null, null, null, null, null, "yesterday", null)).hasMessageContaining("--since");
    }

    private static ArchiveRecord record(long offset, long timestamp) {
        ArchiveRecord r = new ArchiveRecord();
        r.setTopic("orders");
        r.setPartition(2);
        r.setOffset(offset);
        r.setTimestamp(timestamp);
        return r;
    }
}
