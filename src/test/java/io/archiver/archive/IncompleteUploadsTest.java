package io.archiver.archive;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** How the audit, {@code cleanup} and the job's sweep sort incomplete uploads. */
class IncompleteUploadsTest {

    private static final Instant CUTOFF = Instant.parse("2026-12-05T08:00:00Z");

    @Test
    void anUploadAPositionRecordListsIsKeptHoweverOldAndOnlyOlderOnesAreOrphans() {
        IncompleteUploads.Upload cutShort = upload("a/topic=t/partition=0/part-1", CUTOFF.minusSeconds(86_400));
        IncompleteUploads.Upload orphan = upload("a/topic=t/partition=0/part-2", CUTOFF.minusSeconds(1));
        IncompleteUploads.Upload undated = upload("a/topic=t/partition=1/part-3", null);
        IncompleteUploads.Upload recent = upload("a/topic=t/partition=1/part-4", CUTOFF);

        IncompleteUploads.Sorted sorted = IncompleteUploads.sort(
                List.of(cutShort, orphan, undated, recent), Set.of("a/topic=t/partition=0/part-1"), CUTOFF);

        assertThat(sorted.cutShort()).containsExactly(cutShort);
        assertThat(sorted.orphaned()).as("older than the cutoff, or of unknown age").containsExactly(orphan, undated);
        assertThat(sorted.recent()).containsExactly(recent);
    }

    private static IncompleteUploads.Upload upload(String key, Instant initiated) {
        return new IncompleteUploads.Upload("bucket", key, "id-" + key, initiated);
    }
}
