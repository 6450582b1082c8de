package io.archiver.sink;

import io.archiver.table.TableArchiveFiles;
import io.archiver.archive.ArchiveFile;
import io.archiver.archive.ArchiveFiles;
import io.archiver.config.ArchiverConfig;
import io.archiver.archive.ArchiveFileReader;
import io.archiver.job.JobLauncher;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;
import io.archiver.testutils.Await;
import io.archiver.testutils.Jobs;
import io.archiver.testutils.SharedMiniCluster;
import io.archiver.testutils.SharedStack;
import io.archiver.testutils.TestRecords;

import org.apache.flink.core.execution.JobClient;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.archiver.testutils.ArchiveAssertions.archivedCount;
import static io.archiver.testutils.ArchiveAssertions.assertExactlyOnce;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code sink.parquet.buffer-memory} on the real stack: with a small budget, Parquet files that hold more
 * than their share close before the checkpoint, and every record still lands exactly once.
 */
@SharedMiniCluster
class BufferMemoryITCase {

    private static final int PARTITIONS = 4;
    private static final int RECORDS = 8_000;

    @Test
    void filesCloseEarlyToStayWithinTheBufferMemoryAndEveryRecordLandsOnce() throws Exception {
        SharedStack stack = SharedStack.get();
        String topic = SharedStack.uniqueName("buffer-memory");
        stack.kafka().createTopic(topic, PARTITIONS);
        // 2,000 records of 2 KiB per partition, all produced before the job starts and read well within one
        // checkpoint interval: without the bound each partition's records fill one file (measured: 4 files of 2,000).
        List<ArchiveRecord> produced =
                TestRecords.produceLargeValues(stack.kafka().bootstrapServers(), topic, PARTITIONS, RECORDS, 2048);
        Map<String, String> settings = stack.jobSettings(topic, topic);
        settings.put("sink.format", "parquet");
        settings.put("sink.parquet.buffer-memory", "1 mb");
        settings.put("parallelism", "2");
        settings.put("checkpoint.interval", "5 s");
        settings.put("fencing.lease-timeout", "10 s");
        ArchiverConfig config = ArchiverConfig.of(settings);
        PayloadFormats formats = PayloadFormats.of(config);

        JobClient job = JobLauncher.environment(config).executeAsync(topic);
        try {
            Await.until("all records archived", Duration.ofSeconds(120),
                    () -> archivedCount(config.sinkPath(), formats) >= RECORDS);
        } finally {
            Jobs.cancel(job);
        }
        assertExactlyOnce(config.sinkPath(), formats, produced);
        ArchiveFileReader reader = new ArchiveFileReader(formats);
        List<ArchiveFile> files = TableArchiveFiles.of(config).list().committed();
        // each subtask's two open files share 1 MB: a file closes once it holds about half of it (~250 records)
        assertThat(files).hasSizeGreaterThan(RECORDS / 600);
        for (ArchiveFile f : files) {
            assertThat(reader.readAll(f.path())).as(f.path().toString()).hasSizeLessThanOrEqualTo(600);
        }
    }
}
