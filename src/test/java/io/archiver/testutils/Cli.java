package io.archiver.testutils;

import io.archiver.cli.ArchiverCli;
import io.archiver.config.ArchiverConfig;

import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Runs a CLI command in this JVM with a job's settings as -D overrides and the S3 settings as flink.*. */
public final class Cli {

    private Cli() {}

    /** Exit code and everything printed (standard output and error together). */
    public record Result(int code, String out) {}

    /** A command running on a thread of its own: what it printed so far, and its result once it ends. */
    public record Running(StringWriter printed, CompletableFuture<Result> result) {

        /** Everything the command printed so far. */
        public String out() {
            return printed.toString();
        }
    }

    public static Result run(ArchiverConfig config, String... args) {
        return run(new StringWriter(), config, args);
    }

    /** Starts the command on a thread of its own: a test acts on what it prints while it runs (a fault at a step it names). */
    public static Running start(ArchiverConfig config, String... args) {
        StringWriter out = new StringWriter();
        return new Running(out, CompletableFuture.supplyAsync(() -> run(out, config, args)));
    }

    private static Result run(StringWriter out, ArchiverConfig config, String... args) {
        List<String> argv = new ArrayList<>(List.of(args));
        config.toMap().forEach((k, v) -> argv.add("-D" + k + "=" + v));
        SharedStack.get().s3().flinkSettings().forEach((k, v) -> argv.add("-Dflink." + k + "=" + v));
        CommandLine cmd = ArchiverCli.commandLine();
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(out, true));
        int code = cmd.execute(argv.toArray(new String[0]));
        return new Result(code, out.toString());
    }
}
