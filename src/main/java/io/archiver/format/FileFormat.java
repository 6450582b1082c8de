package io.archiver.format;

import io.archiver.config.ArchiverConfig;
import io.archiver.config.FormatArea;
import io.archiver.config.SinkLayout;
import io.archiver.record.ArchiveRecord;
import io.archiver.record.PayloadFormats;

import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.Path;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One file format of the archive, a plug-in: its name, options and their validation ({@link FormatArea}), which
 * files are its (by suffix), how to write them with a configuration's settings, how to read them back. A format is
 * one package implementing this ({@code format.parquet}, {@code format.jsonl}) with a public no-argument constructor,
 * named in {@code META-INF/services/io.archiver.config.FormatArea}; {@link FileFormats} finds it there, and nothing
 * outside the formats looks at a file's suffix or names a format.
 */
public interface FileFormat extends FormatArea {

    /** Every suffix a file of this format may have, whatever settings wrote it ({@code .jsonl}, {@code .jsonl.gz}, …). */
    List<String> suffixes();

    /** True when a file of this name is of this format. */
    default boolean holds(String fileName) {
        for (String suffix : suffixes()) {
            if (fileName.endsWith(suffix)) {
                return true;
            }
        }
        return false;
    }

    /** The suffix of the files this format writes with {@code config}'s settings (its compression). */
    String suffix(ArchiverConfig config);

    /**
     * The writer of this format's files of {@code layout}, with {@code config}'s settings of the format (compression,
     * levels, sizes) and payload formats; the job's sink and repair write with it.
     *
     * @throws IllegalArgumentException if the format cannot write {@code layout} (see {@link #writes})
     */
    BulkWriter.Factory<ArchiveRecord> writer(ArchiverConfig config, SinkLayout layout);

    /**
     * The heap the open part files of one sink subtask may buffer together before those holding their share close
     * early; 0 for no bound (also for a format whose writers buffer nothing: they write straight through).
     */
    long openFileMemory(ArchiverConfig config);

    /** The reader of this format's files; JSON payloads are decoded with {@code payloads}, the formats they were written with. */
    FormatReader reader(PayloadFormats payloads);

    /**
     * Writes {@code file} into {@code out} (left open) without the records whose offsets {@code drop} names per
     * partition: every other record as it was (its bytes, envelope and typed columns, in file order) and the file's
     * own metadata kept. Returns how many records it left out. Erasure rewrites files with it.
     */
    long copyWithout(Path file, FSDataOutputStream out, Map<Integer, Set<Long>> drop) throws IOException;
}
