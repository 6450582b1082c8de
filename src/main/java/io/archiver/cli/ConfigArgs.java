package io.archiver.cli;

import io.archiver.config.ArchiverConfig;
import io.archiver.config.ConfigLoader;

import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** The configuration file and command-line overrides shared by the commands. */
public final class ConfigArgs {

    @Option(
            names = {"-c", "--config"},
            paramLabel = "FILE",
            description = "YAML configuration file, e.g. conf/archiver.yaml.")
    public Path file;

    @Option(
            names = {"-D", "--set"},
            paramLabel = "KEY=VALUE",
            description = "Override one option, e.g. -D sink.format=jsonl. Repeatable; wins over the file.")
    public Map<String, String> overrides = new LinkedHashMap<>();

    /** Loads the configuration: {@code base} settings, then the file, then the overrides. */
    public ArchiverConfig load(Map<String, String> base) {
        return ConfigLoader.load(base, file, overrides);
    }
}
