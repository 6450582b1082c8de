package io.archiver.format;

/**
 * The size of zstd's match table at level 1, for both formats' zstd (JSON Lines streams, Parquet pages).
 *
 * <p>Level 1 looks every position of its input up in a hash table of recent positions. With input it finds few matches
 * in (base64 of random bytes or letters) those lookups are most of its time, and they cost less in a smaller table
 * than the one zstd picks for streams and large pages. With a table of
 * 2^12 entries (16 KB), the writers alone ({@code WriterBenchmark}, both tables in one run): JSON Lines of letters in
 * 0.72x the time for the same bytes, of log lines 0.88x for 1.4 % more bytes, of JSON documents 0.98x for 0.6 % more;
 * Parquet of JSON documents 0.91x and of log lines 0.94x, the same bytes within 0.6 %, of letters unchanged (see
 * docs/benchmarks.md, "zstd's match table"). The frames are ordinary zstd frames: the table is the compressor's
 * alone, readers never see it. Higher levels keep zstd's own tables: their searches are what they are chosen for.
 */
public final class ZstdMatchTable {

    /** log2 of the number of entries of level 1's table. */
    static final int LEVEL_1_HASH_LOG = 12;

    private ZstdMatchTable() {}

    /** The table's log2 size to set at {@code level}, or 0 to keep zstd's own for that level. */
    public static int hashLog(int level) {
        return level == 1 ? LEVEL_1_HASH_LOG : 0;
    }
}
