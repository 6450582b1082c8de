package io.archiver.bench;

import io.archiver.config.ArchiverConfig;
import io.archiver.config.SinkLayout;
import io.archiver.format.jsonl.JsonLinesFormat;
import io.archiver.format.parquet.ParquetFormat;
import io.archiver.record.ArchiveRecord;

import org.apache.flink.api.common.serialization.BulkWriter;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The sink's file writers alone, on one thread: no Kafka, no S3, no Flink. What a format and its compression cost
 * per record on the task thread, and how many bytes they write, for values of three kinds: {@code letters} (the
 * other benchmarks' 1 KiB of random letters), {@code json} (orders as JSON documents) and {@code logs} (log lines),
 * each about 1 KiB and archived as bytes (the default), with the throughput benchmark's keys and two headers.
 *
 * <p>Each variant writes {@code bench.writer.records} records (400,000) in files of {@code bench.writer.file-records}
 * (40,000) to a stream that counts and discards the bytes, through the writer the sink uses
 * ({@code FileFormat.writer}). Variants rotate their order from round to round; the median of
 * {@code bench.rounds} (5) after a warm-up round, min–max in brackets, and each variant's time as a ratio of
 * uncompressed JSON Lines' in the same run. {@code -Dbench.writer.payloads=letters,json,logs},
 * {@code -Dbench.writer.only=<text>} (variants whose name contains it), {@code -Dbench.set.<option>=<value>} (an
 * archiver option for every variant). Writes {@code target/bench/writer.md}.
 *
 * <p>{@code mvn -q -DskipTests verify exec:exec@bench -Dbench.class=WriterBenchmark [-Dbench.args="-Dbench.writer.payloads=letters"]}
 */
public final class WriterBenchmark {

    private static final String BASELINE = "jsonl";

    private WriterBenchmark() {}

    public static void main(String[] args) throws Exception {
        int records = Integer.getInteger("bench.writer.records", 400_000);
        int fileRecords = Integer.getInteger("bench.writer.file-records", 40_000);
        int rounds = Integer.getInteger("bench.rounds", 5);
        String only = System.getProperty("bench.writer.only", "");
        Map<String, BulkWriter.Factory<ArchiveRecord>> variants = variants(only);
        StringBuilder md = new StringBuilder("# File writers alone\n\n")
                .append(String.format("%,d records per variant in files of %,d, one thread, median of %d rounds after a warm-up"
                        + " (min–max); × jsonl is the time per record against uncompressed JSON Lines in the same run.%s%n%n",
                        records, fileRecords, rounds, BenchSettings.described()))
                .append("| values | variant | ns / record | × jsonl | MB written | written / input |\n|---|---|---|---|---|---|\n");
        for (String payload : System.getProperty("bench.writer.payloads", "letters,json,logs").split(",")) {
            List<ArchiveRecord> input = records(payload.trim(), records);
            long inputBytes = input.stream().mapToLong(r -> r.getKey().length + r.getValue().length).sum();
            Map<String, List<Double>> nanos = new LinkedHashMap<>();
            Map<String, Long> written = new LinkedHashMap<>();
            List<String> order = new ArrayList<>(variants.keySet());
            for (int round = 0; round <= rounds; round++) {
                Collections.rotate(order, round == 0 ? 0 : -1);
                for (String variant : order) {
                    long start = System.nanoTime();
                    long bytes = write(variants.get(variant), input, fileRecords);
                    double perRecord = (System.nanoTime() - start) / (double) input.size();
                    if (round > 0) {
                        nanos.computeIfAbsent(variant, v -> new ArrayList<>()).add(perRecord);
                    }
                    written.put(variant, bytes);
                    System.out.printf("round %d %-8s %-24s %8.0f ns/record%n", round, payload, variant, perRecord);
                }
            }
            Double baseline = nanos.containsKey(BASELINE) ? BenchmarkReport.median(nanos.get(BASELINE)) : null;
            for (String variant : variants.keySet()) {
                List<Double> n = nanos.get(variant);
                double median = BenchmarkReport.median(n);
                md.append(String.format("| %s | %s | %.0f (%.0f–%.0f) | %s | %.1f | %.2f |%n", payload, variant, median,
                        Collections.min(n), Collections.max(n), baseline == null ? "" : String.format("%.2f", median / baseline),
                        written.get(variant) / 1e6, written.get(variant) / (double) inputBytes));
            }
        }
        System.out.print(md);
        Files.createDirectories(Path.of("target/bench"));
        Files.writeString(Path.of("target/bench/writer.md"), md.toString());
        System.exit(0);
    }

    private static Map<String, BulkWriter.Factory<ArchiveRecord>> variants(String only) {
        Map<String, Map<String, String>> settings = new LinkedHashMap<>();
        settings.put(BASELINE, Map.of("sink.format", "jsonl"));
        settings.put("jsonl zstd", Map.of("sink.format", "jsonl", "sink.jsonl.compression", "zstd"));
        settings.put("jsonl zstd level 3", Map.of("sink.format", "jsonl", "sink.jsonl.compression", "zstd", "sink.jsonl.zstd-level", "3"));
        settings.put("jsonl gzip level 1", Map.of("sink.format", "jsonl", "sink.jsonl.compression", "gzip", "sink.jsonl.gzip-level", "1"));
        settings.put("parquet snappy", Map.of("sink.format", "parquet", "sink.parquet.compression", "snappy"));
        settings.put("parquet zstd", Map.of("sink.format", "parquet"));
        settings.put("parquet zstd, key filter", Map.of("sink.format", "parquet", "sink.parquet.bloom-filter-columns", "key"));
        settings.put("parquet zstd level 3", Map.of("sink.format", "parquet", "sink.parquet.zstd-level", "3"));
        Map<String, BulkWriter.Factory<ArchiveRecord>> variants = new LinkedHashMap<>();
        settings.forEach((name, s) -> {
            if (name.equals(BASELINE) || name.contains(only)) {
                Map<String, String> all = new LinkedHashMap<>(Map.of("kafka.bootstrap.servers", "unused:9092", "kafka.topics", "bench",
                        "sink.path", "file:///tmp/unused"));
                all.putAll(s);
                ArchiverConfig config = ArchiverConfig.of(BenchSettings.withCommandLine(all));
                variants.put(name, (s.get("sink.format").equals("jsonl") ? JsonLinesFormat.INSTANCE : ParquetFormat.INSTANCE)
                        .writer(config, SinkLayout.PER_PARTITION));
            }
        });
        return variants;
    }

    /** Writes {@code input} in files of {@code fileRecords}; returns the bytes written. */
    private static long write(BulkWriter.Factory<ArchiveRecord> factory, List<ArchiveRecord> input, int fileRecords) throws Exception {
        long bytes = 0;
        for (int from = 0; from < input.size(); from += fileRecords) {
            DiscardingPartFile file = new DiscardingPartFile();
            BulkWriter<ArchiveRecord> writer = factory.create(file);
            for (ArchiveRecord r : input.subList(from, Math.min(input.size(), from + fileRecords))) {
                writer.addElement(r);
            }
            writer.finish();
            bytes += file.getPos();
        }
        return bytes;
    }

    /** The throughput benchmark's records (a key out of 10,000, headers {@code source} and {@code seq}) with values of a kind. */
    private static List<ArchiveRecord> records(String payload, int count) {
        Random random = new Random(42);
        List<ArchiveRecord> records = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            byte[] value = switch (payload) {
                case "letters" -> letters(random);
                case "json" -> order(i, random);
                case "logs" -> logLines(random);
                default -> throw new IllegalArgumentException("bench.writer.payloads: letters, json or logs, not " + payload);
            };
            records.add(new ArchiveRecord("bench", 0, i, 1_772_859_843_000L + i, "CreateTime", utf8("key-" + (i % 10_000)), value,
                    new String[] {"source", "seq"}, new byte[][] {utf8("bench"), utf8(Integer.toString(i))}));
        }
        return records;
    }

    private static byte[] letters(Random random) {
        byte[] value = new byte[Preloader.VALUE_BYTES];
        for (int b = 0; b < value.length; b++) {
            value[b] = (byte) ('a' + random.nextInt(26));
        }
        return value;
    }

    private static final String[] STATUS = {"NEW", "PAID", "SHIPPED", "CANCELLED"};

    /** An order of 10 items as a JSON document, about 1 KiB. */
    private static byte[] order(int id, Random random) {
        StringBuilder json = new StringBuilder().append("{\"id\":").append(id).append(",\"customer\":\"c-").append(random.nextInt(50_000))
                .append("\",\"status\":\"").append(STATUS[random.nextInt(STATUS.length)]).append("\",\"items\":[");
        for (int i = 0; i < 10; i++) {
            json.append(i == 0 ? "" : ",").append("{\"sku\":\"SKU-").append(random.nextInt(100_000)).append("\",\"quantity\":")
                    .append(1 + random.nextInt(9)).append(",\"price\":").append(random.nextInt(100_000) / 100.0).append(",\"warehouse\":\"wh-")
                    .append(random.nextInt(20)).append("\"}");
        }
        return utf8(json.append("]}").toString());
    }

    private static final String[] LEVEL = {"INFO", "INFO", "INFO", "WARN", "DEBUG", "ERROR"};
    private static final String[] SERVICE = {"OrderService", "PaymentGateway", "InventorySync", "ShippingClient"};

    /** Eight log lines, about 1 KiB. */
    private static byte[] logLines(Random random) {
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            lines.append(String.format("2026-12-04T10:%02d:%02d.%03dZ %-5s [worker-%d] %s - order %d handled for customer c-%d in %d ms%n",
                    random.nextInt(60), random.nextInt(60), random.nextInt(1000), LEVEL[random.nextInt(LEVEL.length)], random.nextInt(16),
                    SERVICE[random.nextInt(SERVICE.length)], random.nextInt(10_000_000), random.nextInt(100_000), random.nextInt(500)));
        }
        return utf8(lines.toString());
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
