package io.archiver.sink;

import io.archiver.config.ParquetCompression;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.EnvelopeFields;
import io.archiver.record.PayloadFormats;

import org.apache.flink.formats.parquet.ParquetBuilder;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.OutputFile;

import java.io.IOException;

/** Creates the Parquet writer of one part file; ships only formats, codec and sizes. */
public final class EnvelopeParquetBuilder implements ParquetBuilder<ArchiveRecord> {

    private static final long serialVersionUID = 1L;

    private final PayloadFormats formats;
    private final ParquetCompression compression;
    private final long rowGroupSize;
    private final int pageSize;

    public EnvelopeParquetBuilder(
            PayloadFormats formats, ParquetCompression compression, long rowGroupSize, int pageSize) {
        this.formats = formats;
        this.compression = compression;
        this.rowGroupSize = rowGroupSize;
        this.pageSize = pageSize;
    }

    @Override
    public ParquetWriter<ArchiveRecord> createWriter(OutputFile out) throws IOException {
        // Record values are mostly unique: dictionary-encoding them hashes and compares every value until
        // the dictionary overflows, in every new file (profiled: a quarter of the Parquet writer's time).
        return new Builder(out, formats)
                .withDictionaryEncoding(EnvelopeFields.VALUE, false)
                .withCompressionCodec(codec(compression))
                .withRowGroupSize(rowGroupSize)
                .withPageSize(pageSize)
                .build();
    }

    static CompressionCodecName codec(ParquetCompression compression) {
        switch (compression) {
            case ZSTD:
                return CompressionCodecName.ZSTD;
            case GZIP:
                return CompressionCodecName.GZIP;
            case NONE:
                return CompressionCodecName.UNCOMPRESSED;
            default:
                return CompressionCodecName.SNAPPY;
        }
    }

    private static final class Builder extends ParquetWriter.Builder<ArchiveRecord, Builder> {
        private final PayloadFormats formats;

        Builder(OutputFile out, PayloadFormats formats) {
            super(out);
            this.formats = formats;
        }

        @Override
        protected Builder self() {
            return this;
        }

        @Override
        protected WriteSupport<ArchiveRecord> getWriteSupport(Configuration conf) {
            return new EnvelopeWriteSupport(formats);
        }
    }
}
