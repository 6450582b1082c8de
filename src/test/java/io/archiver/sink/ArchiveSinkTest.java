package io.archiver.sink;

import io.archiver.archive.ArchiveRoot;
import io.archiver.capture.CaptureSettings;
import io.archiver.format.jsonl.JsonCompression;
import io.archiver.config.SinkLayout;
import io.archiver.config.TimePartitioning;
import io.archiver.archive.ArchiveFileReader;
import io.archiver.format.jsonl.JsonLinesWriterFactory;
import io.archiver.fencing.ArchiveLease;
import io.archiver.position.PositionRecord;
import io.archiver.position.PositionStore;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;
import io.archiver.sink.files.ArchiveBucketAssigner;
import io.archiver.sink.files.ArchiveRollingPolicy;
import io.archiver.fs.S3EncryptionRequirement;
import io.archiver.sink.files.FileSinkInContext;
import io.archiver.sink.files.FileStats;
import io.archiver.sink.files.PartFiles;

import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.functions.sink.filesystem.OutputFileConfig;
import org.apache.flink.util.InstantiationUtil;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The archive sink's writer and committer on the local file system, outside a job: what each pending file's
 * committable says it holds, how a commit records positions and makes files visible, and what a fenced job
 * may no longer do. The full protocol under faults is proven end to end by the ITCases.
 */
class ArchiveSinkTest {

    private static final SinkWriter.Context NO_CONTEXT = new SinkWriter.Context() {
        @Override
        public long currentWatermark() {
            return Long.MIN_VALUE;
        }

        @Override
        public Long timestamp() {
            return null;
        }
    };

    @TempDir File dir;
    private final List<AutoCloseable> opened = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : opened) {
            c.close();
        }
    }

    @Test
    void eachPendingFileCarriesTheOffsetsOfTheRecordsWrittenToIt() throws Exception {
        ArchiveSink sink = sink(Long.MAX_VALUE);
        ArchiveSinkWriter writer = writer(sink, 0);
        for (long offset = 10; offset < 20; offset++) {
            writer.write(record("orders", 0, offset), NO_CONTEXT);
            writer.write(record("orders", 1, offset * 2), NO_CONTEXT);
        }

        assertThat(stats(writer.prepareCommit())).containsExactlyInAnyOrder(
                new FileStats("orders", 0, 10, 19, 10), new FileStats("orders", 1, 20, 38, 10));
    }

    @Test
    void filesRolledBetweenBarriersEachCarryTheirOwnOffsetsInOrder() throws Exception {
        ArchiveSink sink = sink(1);
        ArchiveSinkWriter writer = writer(sink, 0);
        byte[] large = new byte[1 << 20]; // larger than any buffer before the file's stream: its size shows at once
        for (long offset = 0; offset < 5; offset++) {
            writer.write(record("orders", 0, offset, large), NO_CONTEXT);
        }

        Collection<ArchiveCommittable> committables = writer.prepareCommit();

        assertThat(stats(committables)).containsExactly(
                new FileStats("orders", 0, 0, 0, 1), new FileStats("orders", 0, 1, 1, 1), new FileStats("orders", 0, 2, 2, 1),
                new FileStats("orders", 0, 3, 3, 1), new FileStats("orders", 0, 4, 4, 1));
        commit(sink, committables, 1);
        for (ArchiveCommittable c : committables) {
            assertThat(offsetsIn(c)).containsExactly(c.stats().get(0).firstOffset());
        }
    }

    @Test
    void writersOfOneSinkKeepTheirFilesStatisticsApart() throws Exception {
        ArchiveSink sink = sink(1);
        ArchiveSinkWriter first = writer(sink, 0);
        ArchiveSinkWriter second = writer(sink, 1);
        byte[] large = new byte[1 << 20];
        first.write(record("orders", 0, 5, large), NO_CONTEXT);
        first.write(record("orders", 0, 6, large), NO_CONTEXT);
        second.write(record("orders", 0, 7, large), NO_CONTEXT);
        second.write(record("orders", 0, 8, large), NO_CONTEXT);

        assertThat(stats(second.prepareCommit())).containsExactly(
                new FileStats("orders", 0, 7, 7, 1), new FileStats("orders", 0, 8, 8, 1));
        assertThat(stats(first.prepareCommit())).containsExactly(
                new FileStats("orders", 0, 5, 5, 1), new FileStats("orders", 0, 6, 6, 1));
    }

    @Test
    void aCommitMakesTheFilesVisibleAndRecordsThePositionAfterThemSettled() throws Exception {
        ArchiveSink sink = sink(Long.MAX_VALUE);
        ArchiveSinkWriter writer = writer(sink, 0);
        for (long offset = 100; offset < 150; offset++) {
            writer.write(record("orders", 3, offset), NO_CONTEXT);
        }
        Collection<ArchiveCommittable> committables = writer.prepareCommit();
        assertThat(visibleFiles()).isEmpty();

        List<Request> requests = commit(sink, committables, 7);

        assertThat(requests).allSatisfy(r -> assertThat(r.signal).isNull());
        assertThat(visibleFiles()).hasSize(1);
        PositionRecord position = new PositionStore(ArchiveRoot.of(root())).read().record(new TopicPartition("orders", 3)).orElseThrow();
        assertThat(position.nextOffset()).isEqualTo(150);
        assertThat(position.checkpointId()).isEqualTo(7);
        assertThat(position.files()).as("the commit is complete: nothing for a start without state to check").isEmpty();
        assertThat(offsetsIn(committables.iterator().next())).hasSize(50).startsWith(100L).endsWith(149L);
    }

    @Test
    void aCommitOfOlderFilesNeverMovesThePositionBack() throws Exception {
        ArchiveSink sink = sink(Long.MAX_VALUE);
        ArchiveSinkWriter writer = writer(sink, 0);
        writer.write(record("orders", 0, 500), NO_CONTEXT);
        commit(sink, writer.prepareCommit(), 9);
        writer.write(record("orders", 0, 40), NO_CONTEXT);

        commit(sink, writer.prepareCommit(), 3);

        assertThat(visibleFiles()).hasSize(2);
        assertThat(new PositionStore(ArchiveRoot.of(root())).read().record(new TopicPartition("orders", 0)).orElseThrow().nextOffset()).isEqualTo(501);
    }

    @Test
    void aJobFencedOffTheArchiveNeitherCommitsNorCheckpoints() throws Exception {
        ArchiveSink sink = sink(Long.MAX_VALUE);
        ArchiveSinkWriter writer = writer(sink, 0);
        writer.write(record("orders", 0, 1), NO_CONTEXT);
        Collection<ArchiveCommittable> committables = writer.prepareCommit();
        // another job takes over the archive (as after this one stopped renewing)
        new ArchiveLease(ArchiveRoot.of(root()), "this-run", "test job", Duration.ofMinutes(1)).release();
        new ArchiveLease(ArchiveRoot.of(root()), "other-run", "other job", Duration.ofMinutes(1)).acquire();

        assertThatThrownBy(() -> commit(sink, committables, 1))
                .isInstanceOf(ArchiveLease.LeaseException.class)
                .hasMessageContaining("fenced off");
        assertThat(visibleFiles()).isEmpty();
        assertThat(new PositionStore(ArchiveRoot.of(root())).read().record(new TopicPartition("orders", 0))).isEmpty();
        assertThatThrownBy(() -> writer.snapshotState(2)).isInstanceOf(ArchiveLease.LeaseException.class);
    }

    private String root() {
        return new Path(dir.toURI()).toString();
    }

    /** A sink as a job deserializes it, its files rolled at {@code maxPartSize} bytes and at every barrier. */
    private ArchiveSink sink(long maxPartSize) throws Exception {
        ArchiveLease lease = new ArchiveLease(ArchiveRoot.of(root()), "this-run", "test job", Duration.ofMinutes(1));
        lease.acquire();
        JsonLinesWriterFactory format = new JsonLinesWriterFactory(PayloadFormats.BYTES, JsonCompression.NONE, 0);
        ArchiveBucketAssigner buckets = new ArchiveBucketAssigner(TimePartitioning.NONE, SinkLayout.PER_PARTITION);
        ArchiveRollingPolicy rolling = new ArchiveRollingPolicy(maxPartSize, 0, 0);
        Properties noKafka = new Properties();
        noKafka.setProperty("bootstrap.servers", "127.0.0.1:1");
        ArchiveSink sink = new ArchiveSink(
                new FileSinkInContext<>(root(), format, buckets, rolling,
                        OutputFileConfig.builder().withPartSuffix(".jsonl").build(), 60_000, 1,
                        S3EncryptionRequirement.none()),
                new PartFiles(format, buckets, rolling, 0, 0),
                new PositionStore(ArchiveRoot.of(root())), lease, false, noKafka, 2, CaptureSettings.none(), Duration.ZERO, null);
        return InstantiationUtil.clone(sink);
    }

    private ArchiveSinkWriter writer(ArchiveSink sink, int subtask) throws Exception {
        ArchiveSinkWriter writer = sink.createWriter(SinkContexts.writer(subtask));
        opened.add(writer);
        return writer;
    }

    /** Commits {@code committables} as the checkpoint {@code checkpoint} would, through the pre-commit tagging. */
    private List<Request> commit(ArchiveSink sink, Collection<ArchiveCommittable> committables, long checkpoint) throws Exception {
        List<Request> requests = new ArrayList<>();
        committables.forEach(c -> requests.add(new Request(c.withCheckpoint(checkpoint))));
        try (Committer<ArchiveCommittable> committer = sink.createCommitter(SinkContexts.committer())) {
            committer.commit(new ArrayList<>(requests));
        }
        return requests;
    }

    private static List<FileStats> stats(Collection<ArchiveCommittable> committables) {
        return committables.stream().map(c -> {
            assertThat(c.stats()).as("a file of the per-partition layout").hasSize(1);
            return c.stats().get(0);
        }).collect(Collectors.toList());
    }

    private List<Long> offsetsIn(ArchiveCommittable committed) throws Exception {
        List<Long> offsets = new ArrayList<>();
        new ArchiveFileReader(PayloadFormats.BYTES).offsets(committed.file().getPendingFile().getPath(), offsets::add);
        return offsets;
    }

    private List<java.nio.file.Path> visibleFiles() throws Exception {
        try (var files = java.nio.file.Files.walk(dir.toPath())) {
            return files.filter(p -> p.getFileName().toString().endsWith(".jsonl")).collect(Collectors.toList());
        }
    }

    private static ArchiveRecord record(String topic, int partition, long offset) {
        return record(topic, partition, offset, ("value " + offset).getBytes());
    }

    private static ArchiveRecord record(String topic, int partition, long offset, byte[] value) {
        return new ArchiveRecord(topic, partition, offset, 1_700_000_000_000L, "CreateTime", null, value, new String[0], new byte[0][]);
    }

    /** A commit request that remembers how the committer settled it. */
    private static final class Request implements Committer.CommitRequest<ArchiveCommittable> {
        private final ArchiveCommittable committable;
        private String signal;

        Request(ArchiveCommittable committable) {
            this.committable = committable;
        }

        @Override
        public ArchiveCommittable getCommittable() {
            return committable;
        }

        @Override
        public int getNumberOfRetries() {
            return 0;
        }

        @Override
        public void signalFailedWithKnownReason(Throwable t) {
            signal = "failed: " + t;
        }

        @Override
        public void signalFailedWithUnknownReason(Throwable t) {
            signal = "failed: " + t;
        }

        @Override
        public void retryLater() {
            signal = "retry";
        }

        @Override
        public void updateAndRetryLater(ArchiveCommittable committable) {
            signal = "retry";
        }

        @Override
        public void signalAlreadyCommitted() {
            signal = "already committed";
        }
    }
}
