package io.archiver.audit;

import io.archiver.table.TableAgreement;

import java.util.List;

/** The audit of a whole archive: per partition, plus what lies around uncommitted, and the verdict. */
public final class AuditReport {

    private final String archive;
    private final boolean deep;
    private final List<PartitionAudit> partitions;
    private final List<String> leftovers;
    private final List<String> staleUploads;
    private final int recentUploads;
    private final List<String> cutShortUploads;
    private final List<TableAgreement> tables;

    AuditReport(String archive, boolean deep, List<PartitionAudit> partitions, List<String> leftovers,
            List<String> staleUploads, int recentUploads, List<String> cutShortUploads) {
        this(archive, deep, partitions, leftovers, staleUploads, recentUploads, cutShortUploads, List.of());
    }

    private AuditReport(String archive, boolean deep, List<PartitionAudit> partitions, List<String> leftovers,
            List<String> staleUploads, int recentUploads, List<String> cutShortUploads, List<TableAgreement> tables) {
        this.archive = archive;
        this.deep = deep;
        this.partitions = partitions;
        this.leftovers = leftovers;
        this.staleUploads = staleUploads;
        this.recentUploads = recentUploads;
        this.cutShortUploads = cutShortUploads;
        this.tables = List.copyOf(tables);
    }

    /** This report with the archive's Iceberg tables compared to its folders ({@code table.format: iceberg}). */
    public AuditReport withTables(List<TableAgreement> agreements) {
        return new AuditReport(archive, deep, partitions, leftovers, staleUploads, recentUploads, cutShortUploads, agreements);
    }

    /** Each topic's table against the archive's files; empty without a table. */
    public List<TableAgreement> getTables() {
        return tables;
    }

    /** Incomplete uploads that position records list: commits cut short, completed by the next start without state. */
    public List<String> getCutShortCommits() {
        return cutShortUploads;
    }

    public long getOffsetsBeyondPosition() {
        return partitions.stream().mapToLong(PartitionAudit::getOffsetsBeyondPosition).sum();
    }

    public String getArchive() {
        return archive;
    }

    public boolean isDeep() {
        return deep;
    }

    public List<PartitionAudit> getPartitions() {
        return partitions;
    }

    /** Hidden temporary objects inside data folders older than the orphan age. */
    public List<String> getLeftovers() {
        return leftovers;
    }

    /** Incomplete multipart uploads older than the orphan age: paid for, never visible. */
    public List<String> getOrphanedUploads() {
        return staleUploads;
    }

    /** Incomplete uploads and temporary objects younger than the orphan age: most likely a running job's in-progress files. */
    public int getInProgressUploads() {
        return recentUploads;
    }

    /** Committed records Kafka holds within the archived ranges that the archive lacks. */
    public long getMissing() {
        return partitions.stream().mapToLong(PartitionAudit::getMissing).sum();
    }

    /** Archived records no committed reader of Kafka sees: aborted, open transactions, truncated, absent. */
    public long getArchivedNotInKafka() {
        return partitions.stream().mapToLong(PartitionAudit::getArchivedNotInKafka).sum();
    }

    /** Committed records dead-lettered instead of archived: accounted for, not missing. */
    public long getDeadLettered() {
        return partitions.stream().mapToLong(PartitionAudit::getDeadLettered).sum();
    }

    /** Committed records skipped (recorded in the skip log) instead of archived: accounted for, not missing. */
    public long getSkipped() {
        return partitions.stream().mapToLong(PartitionAudit::getSkipped).sum();
    }

    /** Committed records erased on request (the erasure log): accounted for, not missing. */
    public long getErased() {
        return partitions.stream().mapToLong(PartitionAudit::getErased).sum();
    }

    /** Records the erasure log names that the archive still holds: erasures cut short. */
    public long getErasedStillArchived() {
        return partitions.stream().mapToLong(PartitionAudit::getErasedStillArchived).sum();
    }

    /** Archived records, duplicates included. */
    public long getRecords() {
        return partitions.stream().mapToLong(PartitionAudit::getRecords).sum();
    }

    /** Archived records whose content differs from Kafka's record at their offset (deep audits only). */
    public long getContentMismatches() {
        return partitions.stream().mapToLong(PartitionAudit::getContentMismatches).sum();
    }

    public long getDuplicatedOffsets() {
        return partitions.stream().mapToLong(PartitionAudit::getDuplicatedOffsets).sum();
    }

    /**
     * True when the archive can be trusted: every committed record archived or rejected on purpose, no duplicate, nothing a
     * committed reader lacks, no content that differs from Kafka's (deep), no orphan.
     */
    public boolean isClean() {
        return getMissing() == 0 && getDuplicatedOffsets() == 0 && getArchivedNotInKafka() == 0 && getOffsetsBeyondPosition() == 0
                && getContentMismatches() == 0 && getErasedStillArchived() == 0
                && leftovers.isEmpty() && staleUploads.isEmpty() && tables.stream().allMatch(TableAgreement::isClean);
    }
}
