package io.archiver.sink.files;

import io.archiver.archive.ArchiveLayout;
import io.archiver.config.SinkLayout;
import io.archiver.config.TimePartitioning;
import io.archiver.record.ArchiveRecord;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class ArchiveBucketAssignerTest {

    /** 2026-03-07T23:59:59.000Z: the next second is another day and hour. */
    private static final long END_OF_DAY = 1_772_927_999_000L;

    @Test
    void theFolderOfTheLastRecordIsReusedOnlyWhileTopicPartitionAndTimeFolderHold() {
        Random random = new Random(7);
        for (SinkLayout layout : SinkLayout.values()) {
            for (TimePartitioning time : TimePartitioning.values()) {
                ArchiveBucketAssigner buckets = new ArchiveBucketAssigner(time, layout);
                String previous = null;
                for (int i = 0; i < 20_000; i++) {
                    // runs of one partition and close timestamps, across topics, partitions, hours, days and negative times
                    String topic = random.nextInt(50) == 0 ? "payments" : "orders";
                    int partition = (i / 37) % 3;
                    long timestamp = (random.nextInt(100) == 0 ? -END_OF_DAY : END_OF_DAY) + (random.nextInt(5) - 2) * 600L + random.nextInt(1_000);
                    ArchiveRecord r = new ArchiveRecord(topic, partition, i, timestamp, "CreateTime", null, null, new String[0], new byte[0][]);
                    String bucket = buckets.bucketOf(r);
                    assertThat(bucket).as("%s %s: %s-%d at %d", layout, time, topic, partition, timestamp)
                            .isEqualTo(ArchiveLayout.bucket(topic, partition, timestamp, time, layout));
                    if (bucket.equals(previous)) {
                        assertThat(bucket).as("the same folder, the same string").isSameAs(previous);
                    }
                    previous = bucket;
                }
            }
        }
    }

    @Test
    void timeFoldersStartAndEndOnUtcDaysAndHoursAlsoBeforeTheEpoch() {
        assertThat(ArchiveLayout.timeFolderStart(END_OF_DAY, TimePartitioning.DAY)).isEqualTo(END_OF_DAY - 86_399_000L);
        assertThat(ArchiveLayout.timeFolderEnd(END_OF_DAY, TimePartitioning.DAY)).isEqualTo(END_OF_DAY + 1_000L);
        assertThat(ArchiveLayout.timeFolderStart(END_OF_DAY, TimePartitioning.HOUR)).isEqualTo(END_OF_DAY - 3_599_000L);
        assertThat(ArchiveLayout.timeFolderEnd(END_OF_DAY, TimePartitioning.HOUR)).isEqualTo(END_OF_DAY + 1_000L);
        assertThat(ArchiveLayout.timeFolderStart(-1L, TimePartitioning.HOUR)).isEqualTo(-3_600_000L);
        assertThat(ArchiveLayout.timeFolderEnd(-1L, TimePartitioning.HOUR)).isZero();
        assertThat(ArchiveLayout.timeFolderStart(42L, TimePartitioning.NONE)).isEqualTo(Long.MIN_VALUE);
        assertThat(ArchiveLayout.timeFolderEnd(42L, TimePartitioning.NONE)).isEqualTo(Long.MAX_VALUE);
    }
}
