package io.archiver.capture;

import io.archiver.archive.ArchiveRoot;
import org.apache.flink.core.fs.Path;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class CaptureStoreTest {

    @TempDir File dir;

    @Test
    void aPointInTimeFindsTheLastCaptureAtOrBeforeItAcrossDays() throws Exception {
        CaptureStore store = new CaptureStore(ArchiveRoot.of(new Path(dir.toURI()).toString()));
        TopicPartition tp = new TopicPartition("orders", 0);
        String group = "billing/eu west";
        store.write(new GroupOffsets(group, Instant.parse("2026-11-29T23:59:59.500Z"), Map.of(tp, 10L)));
        store.write(new GroupOffsets(group, Instant.parse("2026-11-30T10:00:00Z"), Map.of(tp, 20L)));
        store.write(new GroupOffsets(group, Instant.parse("2026-11-30T10:00:00.001Z"), Map.of(tp, 30L)));

        assertThat(store.groups()).containsExactly(group);
        assertThat(store.groupOffsets(group, null).orElseThrow().offsets()).containsEntry(tp, 30L);
        assertThat(store.groupOffsets(group, Instant.parse("2026-11-30T10:00:00Z")).orElseThrow().offsets()).containsEntry(tp, 20L);
        assertThat(store.groupOffsets(group, Instant.parse("2026-11-30T09:00:00Z")).orElseThrow().offsets()).containsEntry(tp, 10L);
        assertThat(store.groupOffsets(group, Instant.parse("2026-11-29T23:59:59Z"))).isEmpty();
        assertThat(store.groupOffsets("other", null)).isEmpty();
    }

    @Test
    void topicSettingsReadBackAsWritten() throws Exception {
        CaptureStore store = new CaptureStore(ArchiveRoot.of(new Path(dir.toURI()).toString()));
        TopicSettings settings = new TopicSettings("orders.eu", 12, Map.of("cleanup.policy", "compact", "retention.ms", "-1"));
        store.write(settings);
        assertThat(store.topic("orders.eu")).contains(settings);
        assertThat(store.topic("payments")).isEmpty();
    }
}
