package io.archiver.format.parquet;

import io.archiver.format.ZstdMatchTable;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdException;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputCompressor;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import java.io.ByteArrayOutputStream;
import java.io.IOException;

/**
 * Compresses Parquet pages with zstd in one call per page: Parquet's own zstd codec opens a stream for every page,
 * with a native context and stream buffers sized for large inputs, which with many partitions (small files, a page
 * per column each) cost more than compressing. A one-shot compression sizes its context to the page and frees it
 * at once, so nothing native stays allocated for files left open or abandoned. Each page is one zstd frame, as
 * with Parquet's codec; level 1 with the match table {@link ZstdMatchTable} sizes.
 *
 * <p>The page's bytes and its compressed bytes go through two arrays kept from page to page, which grow to the
 * largest page: a page-sized array allocated (and zeroed) three times per page was a twentieth of the sink's time,
 * profiled. That holds because the files of a subtask are written by its task thread one call at a time and Parquet
 * copies a compressed page before it compresses the next (the same holds for its own compressors, which the files
 * of a subtask share too): one per subtask, never used by two threads.
 */
final class ZstdPageCompressor implements BytesInputCompressor {

    private final int level;
    private final PageBytes page = new PageBytes();
    private byte[] compressed = new byte[0];

    ZstdPageCompressor(int level) {
        this.level = level;
    }

    @Override
    public BytesInput compress(BytesInput bytes) throws IOException {
        page.reset();
        bytes.writeAllTo(page);
        int bound = (int) Zstd.compressBound(page.size());
        if (compressed.length < bound) {
            compressed = new byte[bound];
        }
        try (ZstdCompressCtx zstd = new ZstdCompressCtx()) {
            zstd.setLevel(level);
            if (ZstdMatchTable.hashLog(level) > 0) {
                zstd.setHashLog(ZstdMatchTable.hashLog(level));
            }
            return BytesInput.from(compressed, 0, zstd.compressByteArray(compressed, 0, compressed.length, page.bytes(), 0, page.size()));
        } catch (ZstdException e) {
            throw new IOException("zstd could not compress a page of " + page.size() + " bytes: " + e.getMessage(), e);
        }
    }

    @Override
    public CompressionCodecName getCodecName() {
        return CompressionCodecName.ZSTD;
    }

    @Override
    public void release() {}

    /** A byte array stream whose array is read in place. */
    private static final class PageBytes extends ByteArrayOutputStream {
        byte[] bytes() {
            return buf;
        }
    }
}
