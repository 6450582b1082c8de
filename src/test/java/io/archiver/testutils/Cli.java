package io.archiver.testutils;

import io.archiver.cli.ArchiverCli;
import io.archiver.config.ArchiverConfig;

import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;

/** Runs a CLI command in this JVM with a job's settings as -D overrides and the S3 settings as flink.*. */
public final class Cli {

    private Cli() {}

    /** Exit code and everything printed (standard output and error together). */
    public record Result(int code, String out) {}

    public static Result run(ArchiverConfig config, String... args) {
        List<String> argv = new ArrayList<>(List.of(args));
        config.toMap().forEach((k, v) -> argv.add("-D" + k + "=" + v));
        SharedStack.get().s3().flinkSettings().forEach((k, v) -> argv.add("-Dflink." + k + "=" + v));
        StringWriter out = new StringWriter();
        CommandLine cmd = ArchiverCli.commandLine();
        cmd.setOut(new PrintWriter(out));
        cmd.setErr(new PrintWriter(out));
        int code = cmd.execute(argv.toArray(new String[0]));
        return new Result(code, out.toString());
    }
}
