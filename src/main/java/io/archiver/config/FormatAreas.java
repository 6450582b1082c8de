package io.archiver.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;

/** The file formats this build has ({@link FormatArea} plug-ins), in the order their services file lists them. */
public final class FormatAreas {

    private static final List<FormatArea> ALL = load();

    private FormatAreas() {}

    public static List<FormatArea> all() {
        return ALL;
    }

    /** The format {@code sink.format} names {@code name}. */
    public static Optional<FormatArea> named(String name) {
        return ALL.stream().filter(f -> f.name().equals(name)).findFirst();
    }

    /** Every format's name, for messages and the reference: "parquet, jsonl". */
    public static String names() {
        return String.join(", ", ALL.stream().map(FormatArea::name).toList());
    }

    private static List<FormatArea> load() {
        List<FormatArea> formats = new ArrayList<>();
        ServiceLoader.load(FormatArea.class, FormatArea.class.getClassLoader()).forEach(formats::add);
        if (formats.isEmpty()) {
            throw new IllegalStateException("No file format found: META-INF/services/" + FormatArea.class.getName() + " is missing from the classpath");
        }
        return List.copyOf(formats);
    }
}
