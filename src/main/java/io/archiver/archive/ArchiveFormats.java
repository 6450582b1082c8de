package io.archiver.archive;

import io.archiver.config.ArchiveFormat;
import io.archiver.config.ArchiverConfig;
import io.archiver.format.ArchiveFileFormat;
import io.archiver.format.jsonl.JsonLinesFormat;
import io.archiver.format.parquet.ParquetFormat;

import java.util.List;
import java.util.Optional;

import static io.archiver.config.SinkOptions.SINK_FORMAT;

/** The file formats an archive's files may be in: the one a configuration writes, the one a file was written in. */
public final class ArchiveFormats {

    private static final List<ArchiveFileFormat> ALL = List.of(ParquetFormat.INSTANCE, JsonLinesFormat.INSTANCE);

    private ArchiveFormats() {}

    /** The format {@code sink.format} selects. */
    public static ArchiveFileFormat configured(ArchiverConfig config) {
        return of(config.get(SINK_FORMAT));
    }

    public static ArchiveFileFormat of(ArchiveFormat id) {
        return ALL.stream().filter(f -> f.id() == id).findFirst().orElseThrow();
    }

    /** The format of a file, by its name; empty for a name no format writes. */
    public static Optional<ArchiveFileFormat> ofFile(String fileName) {
        return ALL.stream().filter(f -> f.holds(fileName)).findFirst();
    }

    /** Every suffix of every format, for messages naming what an archive file looks like. */
    public static List<String> suffixes() {
        return ALL.stream().flatMap(f -> f.suffixes().stream()).toList();
    }
}
