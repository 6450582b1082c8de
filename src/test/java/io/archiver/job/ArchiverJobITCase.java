package io.archiver.job;

import io.archiver.config.ArchiverConfig;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;
import io.archiver.testutils.Jobs;
import io.archiver.testutils.KillsTaskManagers;
import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TestRecords;

import org.apache.flink.core.execution.JobClient;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static io.archiver.testutils.ArchiveAssertions.archivedCount;
import static io.archiver.testutils.ArchiveAssertions.assertExactlyOnce;

/**
 * The streaming job on a real broker, a real S3-compatible server and a Flink MiniCluster: 10,000 records
 * over 4 partitions (half produced while the job runs) are archived exactly once with their keys, values
 * and headers, in both formats, with and without a failover (every TaskManager killed mid-stream).
 */
@KillsTaskManagers
class ArchiverJobITCase {

    private static final int PARTITIONS = 4;
    private static final int HALF = 5_000;

    static Stream<Arguments> formats() {
        Map<String, String> parquet =
                Map.of("sink.format", "parquet", "sink.time-partitioning", "hour");
        Map<String, String> gzip = jsonLines("gzip");
        Map<String, String> zstd = jsonLines("zstd");
        return Stream.of(
                Arguments.of("parquet", parquet, false),
                Arguments.of("parquet", parquet, true),
                Arguments.of("jsonl-gzip", gzip, false),
                Arguments.of("jsonl-zstd", zstd, true));
    }

    private static Map<String, String> jsonLines(String compression) {
        return Map.of(
                "sink.format", "jsonl",
                "sink.jsonl.compression", compression,
                "record.key.format", "string",
                "record.value.format", "json",
                "record.header.format", "string");
    }

    @ParameterizedTest(name = "{0}, failover={2}")
    @MethodSource("formats")
    void archivesEveryRecordExactlyOnce(String name, Map<String, String> format, boolean failover) throws Exception {
        SharedStack stack = SharedStack.get();
        String topic = SharedStack.uniqueName("orders-" + name);
        stack.kafka().createTopic(topic, PARTITIONS);
        Map<String, String> settings = stack.jobSettings(topic, topic);
        settings.putAll(format);
        settings.put("parallelism", "2");
        ArchiverConfig config = ArchiverConfig.of(settings);
        PayloadFormats formats = PayloadFormats.of(config);

        List<ArchiveRecord> produced = new ArrayList<>(
                TestRecords.produce(stack.kafka().bootstrapServers(), topic, PARTITIONS, 0, HALF));
        JobClient job = JobLauncher.environment(config).executeAsync(name);
        try {
            if (failover) {
                Jobs.awaitWhileRunning(job, "first committed files", Duration.ofSeconds(60),
                        () -> archivedCount(config.sinkPath(), formats) > 0);
                stack.killAndReplaceTaskManagers();
            }
            produced.addAll(TestRecords.produce(stack.kafka().bootstrapServers(), topic, PARTITIONS, HALF, HALF));
            Jobs.awaitWhileRunning(job, "all records archived", Duration.ofSeconds(120),
                    () -> archivedCount(config.sinkPath(), formats) >= produced.size());
        } finally {
            Jobs.cancel(job);
        }
        assertExactlyOnce(config.sinkPath(), formats, produced);
    }
}
