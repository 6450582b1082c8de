package io.archiver.format.parquet;

import io.archiver.config.ArchiverConfig;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.MemorySize;

import java.util.Arrays;
import java.util.List;

import static org.apache.flink.configuration.ConfigOptions.key;

/** The options of Parquet files ({@code sink.parquet.*}): compression, sizes, memory, what typed files keep of their payloads, Bloom filters. */
public final class ParquetOptions {

    public static final ConfigOption<ParquetCompression> SINK_PARQUET_COMPRESSION =
            key("sink.parquet.compression")
                    .enumType(ParquetCompression.class)
                    .defaultValue(ParquetCompression.ZSTD)
                    .withDescription("Compression of Parquet files. zstd (at sink.parquet.zstd-level) writes about 0.6x the bytes of "
                            + "snappy and archives faster, with large files and with many small ones (see docs/benchmarks.md); DuckDB, "
                            + "Spark, Trino and Athena read both.");

    public static final ConfigOption<Integer> SINK_PARQUET_ZSTD_LEVEL =
            key("sink.parquet.zstd-level")
                    .intType()
                    .defaultValue(1)
                    .withDescription(
                            "zstd level of Parquet files with zstd compression, 1 (fastest) to 19 (smallest). Raise it only "
                                    + "when storage matters more than the sink's CPU: higher levels cost task CPU for little size.");

    public static final ConfigOption<MemorySize> SINK_PARQUET_ROW_GROUP_SIZE =
            key("sink.parquet.row-group-size")
                    .memoryType()
                    .defaultValue(MemorySize.parse("32mb"))
                    .withDescription(
                            "Parquet row group size: the most a Parquet file buffers in memory before writing.");

    public static final ConfigOption<MemorySize> SINK_PARQUET_PAGE_SIZE =
            key("sink.parquet.page-size")
                    .memoryType()
                    .defaultValue(MemorySize.parse("1mb"))
                    .withDescription("Parquet page size.");

    public static final ConfigOption<MemorySize> SINK_PARQUET_BUFFER_MEMORY =
            key("sink.parquet.buffer-memory")
                    .memoryType()
                    .defaultValue(MemorySize.parse("64mb"))
                    .withDescription(
                            "Heap the open Parquet part files of one sink subtask may hold together, counting 40 KB per open file (about 35 KB "
                                    + "measured) plus its pages and row group not yet written out. When they hold more, the files holding at least their share are closed early "
                                    + "(smaller files, committed with the next checkpoint as usual), so buffered data is bounded by this setting, not by "
                                    + "the checkpoint interval or the input rate. Open files are one per partition and time folder written since the "
                                    + "last checkpoint; if they alone exceed it, a warning names the fixes. 0 removes the bound.");

    public static final ConfigOption<DecodedPayloadBytes> SINK_PARQUET_DECODED_PAYLOAD_BYTES =
            key("sink.parquet.decoded-payload-bytes")
                    .enumType(DecodedPayloadBytes.class)
                    .defaultValue(DecodedPayloadBytes.REBUILD)
                    .withDescription("What Parquet files keep of a key or value decoded into typed columns (record.*.format avro or "
                            + "schema-registry). rebuild: the exact bytes only where the columns cannot rebuild them; an Avro payload "
                            + "written with its file's schema in Avro's own encoding (what Avro's serializers write) is rebuilt from "
                            + "the columns and the schema in the file's footer by restore, audit and repair, and its key or value "
                            + "column is null (about half the bytes of keep, and faster: see docs/schemas.md). keep: the exact bytes "
                            + "of every payload in the key or value column, beside the columns, for readers of the raw bytes.");

    public static final ConfigOption<String> SINK_PARQUET_BLOOM_FILTER_COLUMNS =
            key("sink.parquet.bloom-filter-columns")
                    .stringType()
                    .defaultValue("")
                    .withDescription("Comma-separated columns whose Parquet Bloom filters each row group carries: key, and typed columns "
                            + "of decoded payloads by their path (value_decoded.customer_id). Set key on topics whose keys are people: "
                            + "an erasure (erase) then reads the footers and filters and only the row groups that may hold the key, "
                            + "where without filters it reads the whole archive; query engines (DuckDB, Spark, Trino) skip row groups "
                            + "by them on equality filters. Each filter is sized to its row group's distinct values (about 1.2 bytes "
                            + "each, 1 % false positives, at most " + BloomFilters.MAX_KB + " KB). Costs: the Parquet writer's time "
                            + "per record 1.15x for the key (docs/benchmarks.md), and an open file of the per-partition layout holds "
                            + BloomFilters.HEAP_KB + " KB of heap per column for them (counted in sink.parquet.buffer-memory). "
                            + "Files written before keep what they have.");

    /** Every option of this format, in the order of the configuration reference. */
    static final List<ConfigOption<?>> ALL = List.of(
            SINK_PARQUET_COMPRESSION,
            SINK_PARQUET_ZSTD_LEVEL,
            SINK_PARQUET_ROW_GROUP_SIZE,
            SINK_PARQUET_PAGE_SIZE,
            SINK_PARQUET_BUFFER_MEMORY,
            SINK_PARQUET_DECODED_PAYLOAD_BYTES,
            SINK_PARQUET_BLOOM_FILTER_COLUMNS);

    /** Fails on Parquet sizes and compression levels out of range. */
    static void validate(ArchiverConfig config) {
        config.positive(SINK_PARQUET_ROW_GROUP_SIZE, config.get(SINK_PARQUET_ROW_GROUP_SIZE).getBytes() >= MemorySize.parse("64kb").getBytes(), "at least 64 kb");
        config.positive(SINK_PARQUET_PAGE_SIZE, config.get(SINK_PARQUET_PAGE_SIZE).getBytes() >= 1024, "at least 1 kb");
        long buffers = config.get(SINK_PARQUET_BUFFER_MEMORY).getBytes();
        config.positive(SINK_PARQUET_BUFFER_MEMORY, buffers == 0 || buffers >= MemorySize.parse("1mb").getBytes(), "0 (no bound) or at least 1 mb");
        config.zstdLevel(SINK_PARQUET_ZSTD_LEVEL);
        for (String column : bloomFilterColumns(config)) {
            config.positive(SINK_PARQUET_BLOOM_FILTER_COLUMNS, BloomFilters.takes(column),
                    "key, value, or typed columns by their path (key_decoded.<field>, value_decoded.<field>), comma-separated; '"
                            + column + "' is none of them");
        }
    }

    /** The columns of {@code sink.parquet.bloom-filter-columns}. */
    public static List<String> bloomFilterColumns(ArchiverConfig config) {
        return Arrays.stream(config.get(SINK_PARQUET_BLOOM_FILTER_COLUMNS).split(",")).map(String::trim).filter(c -> !c.isEmpty()).toList();
    }

    private ParquetOptions() {}
}
