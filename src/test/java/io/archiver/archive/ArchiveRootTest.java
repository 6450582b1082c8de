package io.archiver.archive;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The names of the archive's own objects are part of its format: archives written by earlier versions are read under
 * them, so a change here is a change of the archive format.
 */
class ArchiveRootTest {

    private final ArchiveRoot root = ArchiveRoot.of("s3://bucket/archive/");

    @Test
    void everyMetadataObjectKeepsTheNameArchivesHoldItUnder() {
        assertThat(root.uri()).isEqualTo("s3://bucket/archive");
        assertThat(root.lease()).hasToString("s3://bucket/archive/_archiver/lease.json");
        assertThat(root.subtaskPositions()).hasToString("s3://bucket/archive/_archiver/subtask-positions");
        assertThat(root.perPartitionPositions()).hasToString("s3://bucket/archive/_archiver/positions");
        assertThat(root.skipLog()).hasToString("s3://bucket/archive/_archiver/skipped");
        assertThat(root.groupOffsets()).hasToString("s3://bucket/archive/_archiver/groups");
        assertThat(root.topicSettings()).hasToString("s3://bucket/archive/_archiver/topics");
        assertThat(root.restoreLedgers()).hasToString("s3://bucket/archive/_archiver/restore-ledgers.json");
        assertThat(root.legacyRestoreStarts()).hasToString("s3://bucket/archive/_archiver/restores");
        assertThat(root.topicIdentities()).hasToString("s3://bucket/archive/_archiver/topic-ids.json");
        assertThat(root.tables()).hasToString("s3://bucket/archive/_archiver/tables");
        assertThat(root.defaultDeadLetters()).isEqualTo("s3://bucket/archive/_dead-letter");
    }

    @Test
    void dataFoldersAndProbesLieUnderTheRootAndProbesAreHidden() {
        assertThat(root.folder("topic=orders/partition=3")).isEqualTo("s3://bucket/archive/topic=orders/partition=3");
        assertThat(root.writeProbe().toString()).startsWith("s3://bucket/archive/_archiver/preflight-");
        assertThat(root.writeProbe()).isNotEqualTo(root.writeProbe());
    }

    @Test
    void aRootIsTheSameArchiveWithOrWithoutItsTrailingSlash() {
        assertThat(ArchiveRoot.of("file:///tmp/a/")).isEqualTo(ArchiveRoot.of("file:///tmp/a"));
        assertThat(ArchiveRoot.of("file:///tmp/a").lease()).hasToString("file:/tmp/a/_archiver/lease.json");
    }
}
