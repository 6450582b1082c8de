package io.archiver.job;

import io.archiver.archive.ArchiveRoot;
import io.archiver.config.ArchiverConfig;
import io.archiver.fencing.ArchiveLease;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** Operator uids are part of the savepoint contract: they must never change. */
class ArchiverJobUidsTest {

    private static final Map<String, String> SETTINGS = Map.of(
            "kafka.bootstrap.servers", "localhost:9092",
            "kafka.topics", "orders",
            "sink.path", "file:///tmp/kafka-s3-archiver-uids");

    @Test
    void everyOperatorHasItsStableUidAndName() {
        assertThat(uidsAndNames(SETTINGS))
                .containsExactlyInAnyOrderEntriesOf(Map.of(
                        "kafka-source", "Source: Kafka source",
                        "archived-offset-filter", "Skip archived offsets",
                        "record-validator", "Record validator",
                        "archive-sink", "Archive sink: Writer",
                        "archive-sink: checkpoint-ids", "Archive sink: Checkpoint ids",
                        "Sink Committer: archive-sink", "Archive sink: Committer"));
    }

    @Test
    void deadLetterSinkHasItsOwnStableUid() {
        Map<String, String> settings = new java.util.HashMap<>(SETTINGS);
        settings.put("errors.policy", "dead-letter");
        assertThat(uidsAndNames(settings))
                .containsEntry("dead-letter-sink", "Dead-letter sink: Writer")
                .containsKey("kafka-source")
                .containsKey("archive-sink");
    }

    @Test
    void skipLogSinkHasItsOwnStableUid() {
        Map<String, String> settings = new java.util.HashMap<>(SETTINGS);
        settings.put("errors.policy", "skip");
        assertThat(uidsAndNames(settings))
                .containsEntry("skip-log-sink", "Skip log: Writer")
                .doesNotContainKey("dead-letter-sink");
    }

    @Test
    void theTablesCommitterHasItsOwnStableUid() {
        Map<String, String> settings = new java.util.HashMap<>(SETTINGS);
        settings.put("table.format", "iceberg");
        settings.put("table.catalog.uri", "jdbc:sqlite:/tmp/kafka-s3-archiver-uids.db");
        assertThat(uidsAndNames(settings))
                .containsEntry("Sink archive-sink Global Committer", "Archive sink: Global Committer")
                .containsKey("Sink Committer: archive-sink");
    }

    private static Map<String, String> uidsAndNames(Map<String, String> settings) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        ArchiverJob.build(env, ArchiverConfig.of(settings), new ArchiveLease(ArchiveRoot.of("s3://bucket/archive"), "run", "uids", Duration.ofMinutes(1)));
        return env.getStreamGraph().getStreamNodes().stream()
                .collect(Collectors.toMap(StreamNode::getTransformationUID, StreamNode::getOperatorName));
    }
}
