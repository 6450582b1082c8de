package io.archiver.config;

import org.apache.flink.configuration.ConfigOption;

import java.util.List;

/**
 * A file format's part of the configuration: the name {@code sink.format} selects it by, its own options
 * ({@code sink.<format>.*}, declared as public static fields of {@link #optionsClass()}), their validation, and the
 * layouts it can write. File formats are plug-ins: each names itself in
 * {@code META-INF/services/io.archiver.config.FormatArea}, and the configuration finds them there ({@link FormatAreas}),
 * so that adding one touches no class outside its own package.
 */
public interface FormatArea {

    /** The value of {@code sink.format} that selects this format. */
    String name();

    /** This format's options, in the order the configuration reference lists them. */
    List<ConfigOption<?>> options();

    /** The class whose public static fields declare {@link #options()} (their declared types say what each accepts). */
    Class<?> optionsClass();

    /** Fails with a {@link ConfigException} naming the key when one of this format's options holds a value it cannot use. */
    void validate(ArchiverConfig config);

    /** True when this format can write the files of {@code layout} (the per-topic layout's files hold many partitions). */
    boolean writes(SinkLayout layout);
}
