package io.archiver.bench;

import io.archiver.config.ArchiverConfig;
import io.archiver.config.SinkLayout;
import io.archiver.format.parquet.ParquetFormat;
import io.archiver.local.EmbeddedSchemaRegistry;
import io.archiver.record.ArchiveRecord;

import org.apache.flink.api.common.serialization.BulkWriter;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Heap of an open Parquet file by what it holds: the envelope with the value as bytes, and with the value decoded
 * into typed columns ({@link AvroOrders}: 23 columns). Opens {@code bench.open-files.count} files of each (2,000 by
 * default) with one record each, into a stream that discards what it is given, and reports the heap they hold
 * after a full GC, per file. Writes {@code target/bench/open-file-heap.md}.
 *
 * <p>{@code mvn -q -DskipTests package exec:exec@bench -Dbench.class=OpenFileHeapBenchmark}
 */
public final class OpenFileHeapBenchmark {

    private OpenFileHeapBenchmark() {}

    public static void main(String[] args) throws Exception {
        int files = Integer.getInteger("bench.open-files.count", 2_000);
        Map<String, Long> perFile = new LinkedHashMap<>();
        try (EmbeddedSchemaRegistry registry = EmbeddedSchemaRegistry.start()) {
            int id = registry.register("heap-value", "AVRO", AvroOrders.SCHEMA.toString());
            Map<String, String> settings = Map.of("kafka.bootstrap.servers", "unused:9092", "kafka.topics", "heap", "sink.path", "file:///tmp/unused");
            ArchiverConfig bytes = ArchiverConfig.of(settings);
            ArchiverConfig typed = bytes.with(Map.of("record.value.format", "avro", "schema-registry.url", registry.url()));
            Random random = new Random(42);
            byte[] value = AvroOrders.encode(id, 0, random);
            perFile.put("envelope, value as bytes", heapPerFile(ParquetFormat.INSTANCE.writer(bytes, SinkLayout.PER_PARTITION), files, value));
            perFile.put("envelope + 23 typed columns (Avro)", heapPerFile(ParquetFormat.INSTANCE.writer(typed, SinkLayout.PER_PARTITION), files, value));
        }
        StringBuilder md = new StringBuilder("# Heap per open Parquet file\n\n| file | heap per open file (KB) |\n|---|---|\n");
        perFile.forEach((k, v) -> md.append("| ").append(k).append(" | ").append(v / 1024).append(" |\n"));
        System.out.print(md);
        Files.createDirectories(java.nio.file.Path.of("target/bench"));
        Files.writeString(java.nio.file.Path.of("target/bench/open-file-heap.md"), md.toString());
        System.exit(0);
    }

    private static long heapPerFile(BulkWriter.Factory<ArchiveRecord> factory, int files, byte[] value) throws Exception {
        long before = usedAfterGc();
        List<BulkWriter<ArchiveRecord>> open = new ArrayList<>(files);
        for (int i = 0; i < files; i++) {
            BulkWriter<ArchiveRecord> writer = factory.create(new DiscardingPartFile());
            writer.addElement(new ArchiveRecord("heap", i, 0, 1_772_859_843_000L, "CreateTime",
                    ("key-" + i).getBytes(StandardCharsets.UTF_8), value, new String[] {"source"}, new byte[][] {{1}}));
            open.add(writer);
        }
        long held = usedAfterGc() - before;
        if (open.size() != files) {
            throw new IllegalStateException();
        }
        return held / files;
    }

    private static long usedAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
