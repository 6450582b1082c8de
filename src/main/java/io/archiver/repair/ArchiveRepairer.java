package io.archiver.repair;

import io.archiver.archive.ArchiveFile;
import io.archiver.archive.ArchiveFileReader;
import io.archiver.archive.ArchiveLayout;
import io.archiver.archive.ArchiveRoot;
import io.archiver.archive.RejectedRecords;
import io.archiver.config.ArchiverConfig;
import io.archiver.config.ErrorPolicy;
import io.archiver.config.SinkLayout;
import io.archiver.config.TimePartitioning;
import io.archiver.fencing.ArchiveLease;
import io.archiver.format.FileFormat;
import io.archiver.format.FileFormats;
import io.archiver.fs.IoThreads;
import io.archiver.pipeline.PayloadValidator;
import io.archiver.position.ArchivePositions;
import io.archiver.position.PositionRecord;
import io.archiver.position.PositionStore;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.DeadLetter;
import io.archiver.record.PayloadFormats;
import io.archiver.registry.RegistryUnavailableException;
import io.archiver.source.ArchiveRecordDeserializer;
import io.archiver.table.ArchiveCatalog;
import io.archiver.table.ArchiveTable;
import io.archiver.table.TableFile;
import io.archiver.table.TablePositions;
import io.archiver.table.TableSettings;
import io.archiver.table.TableState;

import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.util.Collector;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Snapshot;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static io.archiver.config.RecordOptions.ERRORS_POLICY;
import static io.archiver.config.SinkOptions.SINK_LAYOUT;
import static io.archiver.config.SinkOptions.SINK_PART_PREFIX;
import static io.archiver.config.SinkOptions.SINK_TIME_PARTITIONING;

/**
 * Carries out a {@link RepairPlan} on an archive, alongside the job that keeps archiving into it: the job only
 * writes offsets at or after its position, and everything repaired lies before it.
 *
 * <ul>
 *   <li>Missing records are read from Kafka as a committed reader reads them, checked as the job checks them, and
 *       written in new files, in the configured format, into the record-time folders the job would have put them in;
 *       a record the formats cannot hold goes where {@code errors.policy} says, as in the job (the dead-letter place,
 *       the skip log, or not at all under {@code fail}, reported). Dead-lettered or skipped records asked for are
 *       archived the same way where they are valid now, and left where they are where they are not.
 *   <li>A file to rewrite is written anew without the records to drop, then the old file is deleted: a reader
 *       in between may see a record twice, never not at all. A file left with nothing is deleted. A file of the
 *       per-topic layout is rewritten once for all its partitions, as a file of that layout again (rows
 *       grouped by partition, each partition's offsets in the footer), whatever layout is configured now.
 *   <li>New files are written under a hidden name and renamed when complete, so readers never see a partial file.
 * </ul>
 */
public final class ArchiveRepairer {

    private static final Duration STALL = Duration.ofSeconds(30);

    private final ArchiverConfig config;
    private final ArchiveRoot root;
    private final ArchiveFileReader reader;
    /** The format of files archived anew from Kafka; a rewritten file keeps its own. */
    private final FileFormat format;
    private final PrintWriter log;
    private final ErrorPolicy policy;
    private PayloadValidator validator;
    private long written;
    private long dropped;
    private long rejected;
    private long stillRejected;
    private long unarchivable;
    private int files;
    /** The archive's tables, if it has some: the repair's files reach them in one snapshot per topic. */
    private final Optional<TableSettings> tables;
    /** Data files the repair wrote. */
    private final List<Path> added = new ArrayList<>();
    /** Files the repair rewrote: with tables deleted once the tables no longer list them. */
    private final List<Path> replaced = new ArrayList<>();

    public ArchiveRepairer(ArchiverConfig config, PrintWriter log) {
        this.config = config;
        this.root = ArchiveRoot.of(config);
        this.reader = new ArchiveFileReader(PayloadFormats.of(config));
        this.format = FileFormats.configured(config);
        this.policy = config.get(ERRORS_POLICY);
        this.log = log;
        this.tables = TableSettings.of(config);
    }

    /** What to do with a record read from Kafka that the configured formats cannot hold. */
    private enum Purpose {
        /** a missing record: where {@code errors.policy} says, as the job would have */
        MISSING,
        /** a dead-lettered or skipped record asked to be archived: left where it is */
        REARCHIVE
    }

    /**
     * Applies {@code plan}; {@code committed}: the archive's files. With {@code lease} (held by the caller, renewed
     * here as the repair goes on) no job writes the archive, so files the position records list may be rewritten
     * too, and the records are updated to no longer list them; without ({@code null}) those files are left alone.
     */
    public void apply(RepairPlan plan, List<ArchiveFile> committed, ArchiveLease lease) throws IOException {
        boolean exclusive = lease != null;
        PositionStore positions = new PositionStore(root);
        ArchivePositions records = positions.read();
        Set<String> listed = PositionStore.listedKeys(records.all());
        Set<String> rewritten = new HashSet<>();
        for (Map.Entry<String, List<long[]>> e : plan.missing().entrySet()) {
            renew(lease);
            archiveFromKafka(partition(e.getKey()), e.getValue(), Purpose.MISSING);
        }
        for (Map.Entry<String, List<long[]>> e : plan.rejected().entrySet()) {
            renew(lease);
            archiveFromKafka(partition(e.getKey()), e.getValue(), Purpose.REARCHIVE);
        }
        for (List<ArchiveFile> shares : ArchiveFile.byPath(committed).values()) {
            ArchiveFile file = shares.get(0);
            Map<Integer, Map<Long, Integer>> copies = plan.duplicateDrops().getOrDefault(file.path().toString(), Map.of());
            Map<Integer, List<long[]>> runs = new HashMap<>();
            for (ArchiveFile share : shares) {
                List<long[]> ofPartition = plan.notInKafka().get(share.topic() + "-" + share.partition());
                if (ofPartition != null && mayHold(share, ofPartition)) {
                    runs.put(share.partition(), ofPartition);
                }
            }
            if (copies.isEmpty() && runs.isEmpty()) {
                continue;
            }
            String key = RepairPlan.key(file.path().toString());
            if (listed.contains(key) && !exclusive) {
                log.printf("Left alone: %s holds records to drop but the latest commit of its partition lists it and a job is"
                        + " running; repair again after the partition's next commit%n", file.path());
                continue;
            }
            renew(lease);
            if (rewrite(file, copies, runs) && listed.contains(key)) {
                rewritten.add(key);
            }
        }
        commitTables(committed);
        unlist(positions, records, rewritten);
        for (Path old : replaced) {
            old.getFileSystem().delete(old, false);
        }
        log.printf("Repaired: records archived from Kafka: %d, records dropped: %d, files written: %d%n", written, dropped, files);
        if (rejected > 0) {
            log.printf("Rejected by errors.policy (%s): %d missing records the configured formats cannot hold%n", policy, rejected);
        }
        if (stillRejected > 0) {
            log.printf("Left where they are: %d dead-lettered or skipped records the configured formats still cannot hold%n", stillRejected);
        }
        if (unarchivable > 0) {
            log.printf("Not archived: %d missing records the configured formats cannot hold (errors.policy is fail): fix the record"
                    + " format options, or set errors.policy to skip or dead-letter, and repair again%n", unarchivable);
        }
        log.flush();
    }

    /**
     * With tables: one snapshot per topic that drops the files the repair rewrote and the files the table lists that are
     * gone from the archive, and adds the files the repair wrote (before the rewritten files are deleted, so that no
     * reader of the table meets a missing file). {@code committed}: the archive's files when the repair began.
     */
    private void commitTables(List<ArchiveFile> committed) throws IOException {
        if (tables.isEmpty()) {
            return;
        }
        Set<String> known = new HashSet<>();
        committed.forEach(f -> known.add(f.path().toString()));
        Map<String, List<String>> removed = new HashMap<>();
        Map<String, List<TableFile>> fresh = new HashMap<>();
        for (Path p : replaced) {
            removed.computeIfAbsent(topicOf(p), t -> new ArrayList<>()).add(p.toString());
        }
        for (Path p : added) {
            fresh.computeIfAbsent(topicOf(p), t -> new ArrayList<>()).add(TableFile.fromFooter(p, p.getFileSystem().getFileStatus(p).getLen()));
        }
        ExecutorService pool = Executors.newFixedThreadPool(4, IoThreads.daemon("repair-tables"));
        try (ArchiveCatalog catalog = ArchiveCatalog.open(tables.get())) {
            for (String topic : root.topics()) {
                if (!catalog.exists(topic)) {
                    continue;
                }
                ArchiveTable table = catalog.table(topic);
                List<String> drop = new ArrayList<>(removed.getOrDefault(topic, List.of()));
                int gone = 0;
                for (DataFile f : TableState.current(table.table(), pool).files()) {
                    Path p = new Path(f.location());
                    if (!known.contains(f.location()) && !p.getFileSystem().exists(p)) {
                        drop.add(f.location());
                        gone++;
                    }
                }
                List<TableFile> add = fresh.getOrDefault(topic, List.of());
                if (drop.isEmpty() && add.isEmpty()) {
                    continue;
                }
                Snapshot snapshot = table.replace(drop, add, Map.of(TablePositions.JOB, "repair"), pool);
                log.printf("Table %s: %d files the repair wrote added, %d it rewrote and %d gone from the archive dropped, snapshot %d%n",
                        table.name(), add.size(), drop.size() - gone, gone, snapshot.snapshotId());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static String topicOf(Path file) throws IOException {
        return ArchiveLayout.topicOf(file.toUri().getPath()).orElseThrow(() -> new IOException("No topic folder in " + file));
    }

    private static void renew(ArchiveLease lease) throws IOException {
        if (lease != null) {
            lease.renewIfDue();
        }
    }

    /**
     * Position records list the files of a partition's last commit, which a start without state checks for
     * (a missing one is an upload to complete). Rewritten files leave the list; the position stays.
     */
    private void unlist(PositionStore positions, ArchivePositions records, Set<String> rewritten) throws IOException {
        if (rewritten.isEmpty()) {
            return;
        }
        for (PositionRecord r : records.all()) {
            List<PositionRecord.PendingFile> keep = new ArrayList<>();
            r.files().forEach(f -> {
                if (!rewritten.contains(RepairPlan.key(f.path()))) {
                    keep.add(f);
                }
            });
            if (keep.size() < r.files().size()) {
                positions.replace(records, r.withFiles(keep));
                log.printf("Position record of %s-%d no longer lists the %d rewritten files of its last commit%n",
                        r.topic(), r.partition(), r.files().size() - keep.size());
            }
        }
    }

    /** The partition of a {@code topic-partition} id (topic names may hold dashes; the partition follows the last). */
    private static TopicPartition partition(String id) {
        int dash = id.lastIndexOf('-');
        return new TopicPartition(id.substring(0, dash), Integer.parseInt(id.substring(dash + 1)));
    }

    /**
     * Reads the runs' committed records from Kafka and writes them into their record-time folders (in the
     * per-topic layout, a new file per time folder holding this partition's records); those the configured formats
     * cannot hold go as {@code purpose} says.
     */
    private void archiveFromKafka(TopicPartition tp, List<long[]> runs, Purpose purpose) throws IOException {
        Properties props = config.kafkaClientProperties();
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        TimePartitioning time = config.get(SINK_TIME_PARTITIONING);
        Map<String, NewFile> byFolder = new HashMap<>();
        Map<String, NewFile> rejectedFiles = new HashMap<>();
        ArchiveRecordDeserializer deserializer = new ArchiveRecordDeserializer();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.assign(List.of(tp));
            for (long[] run : runs) {
                consumer.seek(tp, run[0]);
                long lastMove = System.nanoTime();
                while (consumer.position(tp) <= run[1]) {
                    long before = consumer.position(tp);
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                        if (r.offset() > run[1]) {
                            break;
                        }
                        deserializer.deserialize(r, new Collector<>() {
                            @Override
                            public void collect(ArchiveRecord record) {
                                String problem = problem(record);
                                if (problem != null) {
                                    reject(record, problem, purpose, rejectedFiles);
                                    return;
                                }
                                String folder = root.folder(
                                        ArchiveLayout.bucket(record.getTopic(), record.getPartition(), record.getTimestamp(), time, config.get(SINK_LAYOUT)));
                                write(byFolder.computeIfAbsent(folder, f -> new NewFile(f, format, config.get(SINK_LAYOUT))), record);
                            }

                            @Override
                            public void close() {}
                        });
                    }
                    if (consumer.position(tp) > before) {
                        lastMove = System.nanoTime();
                    } else if (System.nanoTime() - lastMove > STALL.toNanos()) {
                        throw new IOException("Reading " + tp + " from " + run[0] + " made no progress for " + STALL.toSeconds() + " s");
                    }
                }
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        for (NewFile f : byFolder.values()) {
            f.close();
            added.add(f.target);
            written += f.records;
            log.printf("Archived %d records of %s from Kafka in %s%n", f.records, tp, f.target);
        }
        for (NewFile f : rejectedFiles.values()) {
            f.close();
            log.printf("Wrote %d records of %s the configured formats cannot hold to %s (errors.policy: %s)%n", f.records, tp, f.target,
                    policy);
        }
    }

    /** Why the configured formats cannot hold the record, as the job's validator says; null when they can. */
    private String problem(ArchiveRecord record) {
        try {
            if (validator == null) {
                validator = new PayloadValidator(PayloadFormats.of(config));
            }
            return validator.problem(record);
        } catch (RegistryUnavailableException e) {
            throw new UncheckedIOException(new IOException("Cannot check " + record + ": " + e.getMessage(), e));
        }
    }

    /**
     * A record the configured formats cannot hold: a dead-lettered or skipped one stays where it is; a missing one goes
     * where {@code errors.policy} says (a new file of the dead-letter place or the skip log, or not at all under fail).
     */
    private void reject(ArchiveRecord record, String problem, Purpose purpose, Map<String, NewFile> rejectedFiles) {
        if (purpose == Purpose.REARCHIVE) {
            log.printf("Still rejected: %s: %s%n", record, problem);
            stillRejected++;
            return;
        }
        String place = switch (policy) {
            case DEAD_LETTER -> config.deadLetterPath();
            case SKIP -> root.skipLog().toString();
            case FAIL -> null;
        };
        if (place == null) {
            log.printf("Cannot archive %s: %s%n", record, problem);
            unarchivable++;
            return;
        }
        String folder = place + "/" + ArchiveLayout.bucket(record.getTopic(), record.getPartition(), record.getTimestamp(),
                TimePartitioning.NONE, SinkLayout.PER_PARTITION);
        DeadLetter entry = policy == ErrorPolicy.SKIP ? DeadLetter.skipped(record, problem) : new DeadLetter(record, problem);
        write(rejectedFiles.computeIfAbsent(folder, f -> new NewFile(f, RejectedRecords.writer(), RejectedRecords.suffix())), entry);
        rejected++;
    }

    /** Whether the file may hold an offset of the runs of its partition (by its footer statistics, when it has them). */
    private boolean mayHold(ArchiveFile file, List<long[]> runs) throws IOException {
        long[] stats = file.offsetStatistics(reader);
        if (stats == null) {
            return true;
        }
        for (long[] run : runs) {
            if (run[0] <= stats[1] && run[1] >= stats[0]) {
                return true;
            }
        }
        return false;
    }

    /**
     * Writes {@code file} anew without the dropped copies ({@code copies}, per partition) and the records in the
     * runs of their partition ({@code runs}), then deletes it. Returns false when the file holds none of them
     * (left as it is).
     */
    private boolean rewrite(ArchiveFile file, Map<Integer, Map<Long, Integer>> copies, Map<Integer, List<long[]>> runs)
            throws IOException {
        List<ArchiveRecord> kept = new ArrayList<>();
        Map<Integer, Map<Long, Integer>> toDrop = new HashMap<>();
        copies.forEach((partition, offsets) -> toDrop.put(partition, new HashMap<>(offsets)));
        long[] droppedHere = {0};
        reader.read(file.path(), r -> {
            Map<Long, Integer> ofPartition = toDrop.getOrDefault(r.getPartition(), Map.of());
            Integer n = ofPartition.get(r.getOffset());
            if (n != null && n > 0) {
                ofPartition.put(r.getOffset(), n - 1);
                droppedHere[0]++;
            } else if (inRuns(r.getOffset(), runs.getOrDefault(r.getPartition(), List.of()))) {
                droppedHere[0]++;
            } else {
                kept.add(r);
            }
        });
        if (droppedHere[0] == 0) {
            return false;
        }
        FileSystem fs = file.path().getFileSystem();
        if (!kept.isEmpty()) {
            FileFormat itsFormat = FileFormats.ofFile(file.path().getName()).orElseThrow();
            NewFile replacement = new NewFile(file.path().getParent().toString(), itsFormat,
                    file.shared() ? SinkLayout.PER_TOPIC : SinkLayout.PER_PARTITION);
            for (ArchiveRecord r : kept) {
                replacement.add(r);
            }
            replacement.close();
            added.add(replacement.target);
            log.printf("Rewrote %s as %s without %d records%n", file.path(), replacement.target, droppedHere[0]);
        } else {
            log.printf("Deleted %s: all its %d records were to drop%n", file.path(), droppedHere[0]);
        }
        if (tables.isPresent()) {
            replaced.add(file.path());
        } else {
            fs.delete(file.path(), false);
        }
        dropped += droppedHere[0];
        return true;
    }

    private static boolean inRuns(long offset, List<long[]> runs) {
        for (long[] run : runs) {
            if (offset >= run[0] && offset <= run[1]) {
                return true;
            }
        }
        return false;
    }

    private void write(NewFile file, ArchiveRecord record) {
        try {
            file.add(record);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A file being written under a hidden name in {@code folder}, renamed to its final name when closed. */
    private final class NewFile {
        private final Path target;
        private final Path hidden;
        private final BulkWriter.Factory<ArchiveRecord> factory;
        private FSDataOutputStream out;
        private BulkWriter<ArchiveRecord> writer;
        private int records;

        NewFile(String folder, FileFormat format, SinkLayout layout) {
            this(folder, format.writer(config, layout), format.suffix(config));
        }

        NewFile(String folder, BulkWriter.Factory<ArchiveRecord> factory, String suffix) {
            this.factory = factory;
            String name = config.get(SINK_PART_PREFIX) + TableState.REPAIR_MARKER + UUID.randomUUID() + "-0" + suffix;
            this.target = new Path(folder, name);
            this.hidden = new Path(folder, "." + name + ".inprogress");
        }

        void add(ArchiveRecord record) throws IOException {
            if (writer == null) {
                out = hidden.getFileSystem().create(hidden, FileSystem.WriteMode.NO_OVERWRITE);
                writer = factory.create(out);
            }
            writer.addElement(record);
            records++;
        }

        void close() throws IOException {
            if (writer == null) {
                return;
            }
            writer.finish();
            out.close();
            if (!hidden.getFileSystem().rename(hidden, target)) {
                throw new IOException("Cannot rename " + hidden + " to " + target);
            }
            files++;
        }
    }
}
