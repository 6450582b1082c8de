package io.archiver.format;

import io.archiver.config.ArchiverConfig;
import io.archiver.config.FormatArea;
import io.archiver.config.FormatAreas;

import java.util.List;
import java.util.Optional;

import static io.archiver.config.SinkOptions.SINK_FORMAT;

/**
 * The file formats an archive's files may be in (the {@link FileFormat} plug-ins of this build): the one a
 * configuration writes, the one a file was written in.
 */
public final class FileFormats {

    private static final List<FileFormat> ALL = FormatAreas.all().stream().map(FileFormats::fileFormat).toList();

    private FileFormats() {}

    /** The format {@code sink.format} selects (checked when the configuration was built). */
    public static FileFormat configured(ArchiverConfig config) {
        return named(config.get(SINK_FORMAT));
    }

    /** The format {@code sink.format} calls {@code name}. */
    public static FileFormat named(String name) {
        return ALL.stream().filter(f -> f.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("No file format '" + name + "' (formats: " + FormatAreas.names() + ")"));
    }

    /** The format of a file, by its name; empty for a name no format writes. */
    public static Optional<FileFormat> ofFile(String fileName) {
        return ALL.stream().filter(f -> f.holds(fileName)).findFirst();
    }

    /** Every suffix of every format, for messages naming what an archive file looks like. */
    public static List<String> suffixes() {
        return ALL.stream().flatMap(f -> f.suffixes().stream()).toList();
    }

    private static FileFormat fileFormat(FormatArea area) {
        if (area instanceof FileFormat format) {
            return format;
        }
        throw new IllegalStateException(area.getClass().getName() + " is named in META-INF/services/" + FormatArea.class.getName()
                + " but is no " + FileFormat.class.getName());
    }
}
