package io.archiver.format.parquet;

import com.github.luben.zstd.Zstd;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputCompressor;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import java.io.IOException;

/**
 * Compresses Parquet pages with zstd in one call per page: Parquet's own zstd codec opens a stream for every page,
 * with a native context and stream buffers sized for large inputs, which with many partitions (small files, a page
 * per column each) cost more than compressing. A one-shot compression sizes its context to the page and frees it
 * at once, so nothing stays allocated for files left open or abandoned. Each page is one zstd frame, as with
 * Parquet's codec. Stateless: the files of a subtask share one.
 */
final class ZstdPageCompressor implements BytesInputCompressor {

    private final int level;

    ZstdPageCompressor(int level) {
        this.level = level;
    }

    @Override
    public BytesInput compress(BytesInput bytes) throws IOException {
        return BytesInput.from(Zstd.compress(bytes.toByteArray(), level));
    }

    @Override
    public CompressionCodecName getCodecName() {
        return CompressionCodecName.ZSTD;
    }

    @Override
    public void release() {}
}
